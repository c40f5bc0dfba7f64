"""How fast is tutorial_lib.packing.strategies.bfd on a million documents, and how full are its rows?

    .venv/bin/python benchmarks/bench_packing.py

The lengths are real: TinyStories stories tokenized with a BPE of 4096 tokens trained on them, one BOS per
story, then N_DOCS lengths drawn from those with replacement (fixed seed). Rows of SEQ_LEN tokens.
`bfd` (best-fit decreasing with a tree over the free room of the rows) and `ffd` (first-fit decreasing with a
tree over the rows) pack all N_DOCS; beside them, in the same run, the textbook first-fit loop (`ffd_scan`:
scan every open row for each document, O(N x rows)) packs the first N_SCAN of them, and so does `bfd`:
speedup = scan time / bfd time on those N_SCAN. Each time is the best of REPEATS runs.
Targets: bfd on N_DOCS in under 10 s, with no more rows than ffd.
"""

import time

import numpy as np

from tutorial_lib.data import tinystories_documents
from tutorial_lib.packing.strategies import bfd, ffd, ffd_scan
from tutorial_lib.tokenization.tokenizer import Tokenizer

N_DOCS = 1_000_000
N_SCAN = 20_000
SEQ_LEN = 2048
REPEATS = 3


def story_lengths() -> np.ndarray:
    stories = tinystories_documents()
    tokenizer = Tokenizer.train(stories, 4096)
    return np.array([len(tokenizer.encode_ordinary(story)) + 1 for story in stories])  # + 1: the BOS


def best_time(pack, lengths, repeats=REPEATS):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = pack(lengths, SEQ_LEN)
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    real = story_lengths()
    print(f"{len(real)} TinyStories stories: mean {real.mean():.1f} tokens, median {np.median(real):.0f}, "
          f"max {real.max()}; rows of {SEQ_LEN}")
    lengths = np.random.default_rng(0).choice(real, N_DOCS)
    print(f"{'':18}{'documents':>10}{'time (s)':>10}{'rows':>9}{'utilization':>13}")
    figures = {}
    for name, pack, docs in [("bfd", bfd, lengths), ("ffd", ffd, lengths), ("bfd", bfd, lengths[:N_SCAN]),
                             ("first-fit scan", ffd_scan, lengths[:N_SCAN])]:
        seconds, result = best_time(pack, docs, 1 if pack is ffd_scan else REPEATS)
        figures[name, len(docs)] = seconds, result.n_rows
        print(f"{name:18}{len(docs):>10,}{seconds:>10.3f}{result.n_rows:>9,}{result.utilization:>13.4f}")
    (bfd_s, bfd_rows), (_, ffd_rows) = figures["bfd", N_DOCS], figures["ffd", N_DOCS]
    speedup = figures["first-fit scan", N_SCAN][0] / figures["bfd", N_SCAN][0]
    print(f"speedup of bfd over the first-fit scan on {N_SCAN:,} documents: {speedup:.0f}x")
    print(f"target: bfd on {N_DOCS:,} in < 10 s: {bfd_s:.2f} s {'ok' if bfd_s < 10 else 'MISSED'}; "
          f"rows <= ffd: {bfd_rows:,} vs {ffd_rows:,} {'ok' if bfd_rows <= ffd_rows else 'MISSED'}")


if __name__ == "__main__":
    main()
