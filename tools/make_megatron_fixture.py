"""Write the .bin/.idx fixture in data/megatron/ with megatron-core itself (run in .interop-venv).

    .interop-venv/bin/python tools/make_megatron_fixture.py [--out DIR]   (`make interop` builds that venv)

The first TinyStories stories go in through the call megatron's tools/preprocess_data.py makes,
add_document(ids, lengths), with EOD appended as its --append-eod does, so tests/lesson/packing/test_megatron.py
can check that our reader gets back exactly our own tokenizer's ids from files that megatron-core wrote:

- tinystories_gpt2_text_document: the first 40 stories, one sequence per story (GPT-2 ids then EOD 50256),
  dtype uint16, the dtype megatron picks for GPT-2's 50,257 ids (DType.optimal_dtype).
- tinystories_gpt2_int32_text_sentence: the first 8 stories, one sequence per non-empty line (the layout
  --split-sentences gives, with lines for sentences: a document of several sequences, EOD at the end of its
  last one), dtype int32, what megatron picks for a vocabulary of 65,500 ids or more.

The ids come from tiktoken's GPT-2 BPE built from data/gpt2/ (checked against its sha256), an encoder
independent of ours. Nothing from this repository is imported. The script prints what data/PROVENANCE.md
records: versions and the sha256 of each file. `make interop` rebuilds them into a temporary folder and checks
that they equal the committed ones byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from importlib.metadata import version
from pathlib import Path

os.environ["TIKTOKEN_CACHE_DIR"] = ""  # read data/gpt2/ directly; cache nothing

import numpy as np  # noqa: E402
import tiktoken  # noqa: E402
from megatron.core.datasets.indexed_dataset import DType, IndexedDatasetBuilder  # noqa: E402
from tiktoken.load import data_gym_to_mergeable_bpe_ranks  # noqa: E402
from tiktoken_ext.openai_public import r50k_pat_str  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
ENDOFTEXT = "<|endoftext|>"
TINYSTORIES_SHA256 = "e39dc862155e2ba77f77968bd04ff15555c0d42c0cf14dc23d2ace659abee8fe"
DOCUMENT_STORIES = 40
SENTENCE_STORIES = 8


def gpt2() -> tiktoken.Encoding:
    """tiktoken's `gpt2` encoding, from the bundled files instead of a download (same hashes)."""
    ranks = data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(DATA / "gpt2" / "vocab.bpe"),
        encoder_json_file=str(DATA / "gpt2" / "encoder.json"),
        vocab_bpe_hash="1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
        encoder_json_hash="196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    )
    return tiktoken.Encoding("gpt2", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={ENDOFTEXT: 50256}, explicit_n_vocab=50257)


def stories() -> list[str]:
    """The stories as tutorial_lib.data.tinystories_documents() splits them: on <|endoftext|>, newlines trimmed."""
    raw = (DATA / "tinystories_v2_sample.txt").read_bytes()
    if hashlib.sha256(raw).hexdigest() != TINYSTORIES_SHA256:
        raise ValueError("data/tinystories_v2_sample.txt was altered (restore it from git)")
    pieces = (piece.strip("\n") for piece in raw.decode("utf-8").split(ENDOFTEXT))
    return [piece for piece in pieces if piece.strip()]


def build(out: Path, name: str, documents: list[list[list[int]]], dtype: type) -> None:
    """Write one dataset through megatron's builder: each document is its list of sequences.

    add_document(ids, lengths) is the call preprocess_data.py makes; the files are written in a temporary
    folder and renamed into place.
    """
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        prefix = os.path.join(tmp, name)
        builder = IndexedDatasetBuilder(prefix + ".bin", dtype=dtype)
        for sequences in documents:
            builder.add_document([i for s in sequences for i in s], [len(s) for s in sequences])
        builder.finalize(prefix + ".idx")
        for suffix in (".bin", ".idx"):
            os.replace(prefix + suffix, out / (name + suffix))


def main(out: Path) -> None:
    out.mkdir(exist_ok=True)
    encoding, texts = gpt2(), stories()
    eod = encoding.eot_token
    by_story = [[encoding.encode_ordinary(text) + [eod]] for text in texts[:DOCUMENT_STORIES]]
    build(out, "tinystories_gpt2_text_document", by_story, DType.optimal_dtype(encoding.n_vocab))
    by_line = []
    for text in texts[:SENTENCE_STORIES]:
        lines = [encoding.encode_ordinary(line) for line in text.split("\n") if line]
        lines[-1].append(eod)
        by_line.append(lines)
    build(out, "tinystories_gpt2_int32_text_sentence", by_line, np.int32)
    print(f"megatron-core {version('megatron-core')}, torch {version('torch')}, numpy {version('numpy')}, "
          f"tiktoken {version('tiktoken')}")
    for path in sorted(out.iterdir()):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{path.name}  {path.stat().st_size} bytes  sha256 {digest}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA / "megatron", help="folder to write (default data/megatron)")
    main(parser.parse_args().out)
