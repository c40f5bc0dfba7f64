"""`python -m tutorial_pipeline.golden write|check --tokenizer course|gpt2|FILE PATH`: write a
tokenizer's golden vectors (`tutorial_lib.contract.golden`), or check a tokenizer against them in
CI. `check` exits 0 when every vector holds and the file was written for this tokenizer, else 1.
"""

from __future__ import annotations

import argparse
import sys

from tutorial_lib import data
from tutorial_lib.data import file_sha256
from tutorial_lib._check_files import check_regular_file
from tutorial_lib.bpe.formats import from_gpt2_files
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.contract.golden import check, failing_categories, read, write


def load_tokenizer(name: str, argument: str = "--tokenizer") -> Tokenizer:
    """"course" (data/tokenizers), "gpt2" (data/gpt2, <|endoftext|> special) or a saved file."""
    if name == "course":
        return manifest.load(data.course_tokenizer_path())
    if name == "gpt2":
        return from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    return manifest.load(check_regular_file(name, argument))


def main(argv: list[str] | None = None) -> int:
    """`write` a golden file, or `check` one: exit 0 when every vector holds, 1 otherwise."""
    parser = argparse.ArgumentParser(prog="python -m tutorial_pipeline.golden",
                                     description="Write or check a tokenizer's golden vectors.")
    parser.add_argument("command", choices=("write", "check"))
    parser.add_argument("--tokenizer", default="course",
                        help="course, gpt2 or a file written by manifest.save (default: course)")
    parser.add_argument("path", help="the golden vectors file (JSON lines)")
    args = parser.parse_args(argv)
    try:
        tokenizer = load_tokenizer(args.tokenizer)
        if args.command == "write":
            path = write(tokenizer, args.path)
            print(f"wrote {len(read(path)[1])} golden vectors to {path} (sha256 "
                  f"{file_sha256(path)})")
            return 0
        recorded, expected = read(args.path)
        failures = check(tokenizer, args.path)
    except (OSError, ValueError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    same_tokenizer = recorded["tokenizer_sha256"] == manifest.digest(tokenizer)
    if not same_tokenizer:
        print(f"the file was written for tokenizer {recorded['tokenizer_sha256']}; this one is "
              f"{manifest.digest(tokenizer)}")
    for f in failures:
        print(f"FAIL {f.category} {f.input!r}")
        for key, (want, got) in f.differs.items():
            print(f"    {key}: expected {want!r}, got {got!r}")
    print(f"{len(failures)} of {len(expected)} golden vectors fail"
          + "".join(f"\n    {c}: {', '.join(keys)}"
                    for c, keys in failing_categories(failures).items()))
    return 0 if same_tokenizer and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
