"""The pipeline (`pipeline.build`) on hostile shapes of text: time and peak memory, beside tiktoken.

    .venv/bin/python benchmarks/bench_pipeline.py

Each case runs in a new process, so that one case does not inflate another's memory. Peak memory is the
process's peak resident set (VmHWM in /proc/self/status) minus its resident set just before the measured
step (after the imports and the tokenizer are loaded): what the step itself added. Not ru_maxrss: Linux
carries it over an exec from the forked copy of the parent, so a child of a big process (benchmarks/run.py
after another benchmark) would report the parent's size.

1. Many documents: LINES one-word lines (2 bytes each with the newline), `--split line`, one worker. Beside
   it tiktoken's GPT-2 (same vocabulary, from the same bundled files) encoding the same lines one by one
   into one uint32 array with an EOD after each (encoding only: no reading, no writing).
2. One long pre-token: PRETOKEN_MB MB of random lowercase letters on one line (the GPT-2 pattern keeps a
   run of letters in one pre-token, and merges never cross pre-tokens, so it is merged whole). Beside it
   tiktoken encoding the same text.
3. Workers on a small input: the bundled TinyStories file, `--split '<|endoftext|>'`, with 1 and with 2
   workers, wall time of the whole command line in a new process (start-up and tokenizer loading
   included), as a user runs it; then what starting workers costs, with and without the tokenizer.
Every file goes to a temporary directory that is removed at the end.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tutorial_lib import data

ROOT = Path(data.__file__).parent.parent  # the tree whose tutorial_lib is measured
LINES = 1_000_000
PRETOKEN_MB = 5
EOT = data.ENDOFTEXT

CHILD = r"""
import json, sys, time
from pathlib import Path

def rss_mb(field="VmRSS"):  # VmHWM: the peak resident set of this program, not of its parent
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith(field)).split()[1]) / 1024

which, corpus, out = sys.argv[1:4]
if which == "ours":
    from tutorial_lib import data, pipeline
    from tutorial_lib.tokenization.tokenizer import Tokenizer
    tok = Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    run = lambda: pipeline.build(corpus, tok, out, split="line", progress=False).tokens
else:
    import array
    import numpy as np
    sys.path.insert(0, sys.argv[4])
    from bench_pipeline import tiktoken_gpt2
    enc = tiktoken_gpt2()

    def run():
        ids = array.array("I")
        for line in Path(corpus).read_text(encoding="utf-8").splitlines():
            if line.strip():
                ids.extend(enc.encode_ordinary(line))
                ids.append(50256)
        return len(np.frombuffer(ids, np.uint32))
before = rss_mb()
start = time.perf_counter()
tokens = run()
seconds = time.perf_counter() - start
peak = rss_mb("VmHWM")
print(json.dumps({"tokens": tokens, "seconds": seconds, "peak_mb": peak - before}))
"""


def tiktoken_gpt2():
    """tiktoken's GPT-2 built from the bundled files (no download), as bench_megatron.py builds it."""
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext.openai_public import r50k_pat_str

    encoder_json, vocab_bpe = data.gpt2_files()
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    ranks = data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json),
                                            vocab_bpe_hash=data.GPT2_FILES["gpt2/vocab.bpe"],
                                            encoder_json_hash=data.GPT2_FILES["gpt2/encoder.json"])
    return tiktoken.Encoding("gpt2_offline", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={EOT: 50256}, explicit_n_vocab=50257)


def measure(which: str, corpus: Path, out: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", CHILD, which, str(corpus), str(out),
                          str(Path(__file__).parent)], capture_output=True, text=True, cwd=ROOT, check=False)
    if run.returncode:
        raise RuntimeError(run.stderr)
    return json.loads(run.stdout)


def compare(title: str, corpus: Path, out: Path) -> None:
    ours, theirs = measure("ours", corpus, out), measure("tiktoken", corpus, out)
    print(f"{title}: ours {ours['seconds']:.2f} s, +{ours['peak_mb']:.0f} MB peak, {ours['tokens']:,} tokens; "
          f"tiktoken {theirs['seconds']:.2f} s, +{theirs['peak_mb']:.0f} MB peak, {theirs['tokens']:,} tokens; "
          f"time ratio ours/tiktoken {ours['seconds'] / theirs['seconds']:.1f}x", flush=True)


def cli_seconds(workers: int, out: Path) -> float:
    command = [sys.executable, "-m", "tutorial_lib.pipeline", "build", "--tokenizer", "gpt2", "--output",
               str(out), "--split", EOT, "--workers", str(workers), "--quiet", str(data.corpus_path("tinystories"))]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def worker_start_seconds() -> tuple[float, float, float]:
    """Where a small build with workers loses its time: starting 2 workers (spawn, imports) with
    one tiny task, then the same with GPT-2's tokenizer handed to each, and unpickling it once."""
    import pickle

    from tutorial_lib import pipeline
    from tutorial_lib._parallel import map_in_workers
    from tutorial_lib.tokenization.tokenizer import Tokenizer

    tok = Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
    start = time.perf_counter()
    list(map_in_workers(abs, [-1], 2, job="a benchmark", caller="main"))
    bare = time.perf_counter() - start
    start = time.perf_counter()
    list(map_in_workers(abs, [-1], 2, job="a benchmark", caller="main", initializer=pipeline._start_worker,
                        initargs=(tok, 50256)))
    loaded = time.perf_counter() - start
    blob = pickle.dumps(tok)
    start = time.perf_counter()
    pickle.loads(blob)
    return bare, loaded, time.perf_counter() - start


def main() -> None:
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        lines = tmp / "lines.txt"
        lines.write_text("".join(rng.choice("abcdefghij") + "\n" for _ in range(LINES)), encoding="utf-8")
        compare(f"{LINES:,} one-word lines ({lines.stat().st_size / 1e6:.0f} MB)", lines, tmp / "lines")
        long = tmp / "long.txt"
        long.write_text("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=PRETOKEN_MB * 10**6)) + "\n",
                        encoding="utf-8")
        compare(f"one {PRETOKEN_MB} MB pre-token", long, tmp / "long")
        one, two = cli_seconds(1, tmp / "one"), cli_seconds(2, tmp / "two")
        print(f"TinyStories sample through the command line: 1 worker {one:.2f} s, 2 workers {two:.2f} s "
              f"(ratio {two / one:.2f})", flush=True)
    bare, loaded, unpickle = worker_start_seconds()
    print(f"starting 2 workers for one tiny task: {bare:.2f} s; with GPT-2's tokenizer sent to each: "
          f"{loaded:.2f} s (unpickling it once takes {unpickle:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
