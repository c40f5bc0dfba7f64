"""How fast is tutorial_lib.packing.strategies.bfd on a million documents, how full are its rows, and what do
long rows (L of 2**20 and more, as long-context training uses) cost in time and memory?

    .venv/bin/python benchmarks/bench_packing.py

The lengths are real: TinyStories stories tokenized with a BPE of 4096 tokens trained on them, one BOS per
story, then N_DOCS lengths drawn from those with replacement (fixed seed). Rows of SEQ_LEN tokens.
`bfd` (best-fit decreasing with a tree over the rows' free room), the room-indexed best fit it replaced
(below) and `ffd` (first-fit decreasing with a tree over the rows) pack all N_DOCS; beside them, in the same
run, the textbook first-fit loop (`ffd_scan`: scan every open row for each document, O(N x rows)) packs the
first N_SCAN of them, and so does `bfd`: speedup = scan time / bfd time on those N_SCAN. Each time is the
best of REPEATS runs.

Long rows: `bfd` on 2 documents at L = 2**20, 10**7 and 10**8, and on N_DOCS documents at L = 2**20, with the
peak memory the call allocates (tracemalloc, in a run of its own, not timed). Beside `bfd`, in the same run:
the library `binpacking` (`to_constant_volume`: worst-fit decreasing, a scan of every bin per item; its cost
does not depend on L either, but on items x bins), and the best fit this project used before, the same loop
over a tree indexed by every room 0..L (`RoomIndexedBestFit` below), on the cases it can finish (L <= 10**7).
Targets: bfd on N_DOCS at SEQ_LEN in under 10 s, with no more rows than ffd; at L = 2**20 in under 5 s and
300 MB.
"""

import time
import tracemalloc
from heapq import heappop, heappush
from types import SimpleNamespace

import numpy as np

from tutorial_lib.data import tinystories_documents
from tutorial_lib.packing import strategies
from tutorial_lib.packing.fit_trees import MaxTree
from tutorial_lib.packing.strategies import bfd, ffd, ffd_scan
from tutorial_lib.bpe.trainer import train_tokenizer

try:
    import binpacking  # the fixed-volume bin packer on PyPI
except ImportError:
    binpacking = None

N_DOCS = 1_000_000
N_SCAN = 20_000
SEQ_LEN = 2048
REPEATS = 3
LONG = 2**20
LONG_TARGET_S, LONG_TARGET_MB = 5, 300


class RoomIndexedBestFit:
    """The best fit of `strategies.bfd` until issue 16, kept only to measure against: slot c of a tree
    over 0..L is set when some row has c tokens of room, so it allocates in proportion to L."""

    def __init__(self, width, lengths):
        self.tree = MaxTree(width + 1)
        self.rows_by_room = [[] for _ in range(width + 1)]

    def take(self, length):
        room = self.tree.leftmost(length)
        if room < 0:
            return -1
        rows = self.rows_by_room[room]
        row = heappop(rows)
        if not rows:
            self.tree.set(room, 0)
        return row

    def put(self, row, room):
        if room:
            if not self.rows_by_room[room]:
                self.tree.set(room, room)
            heappush(self.rows_by_room[room], row)


def old_bfd(lengths, seq_len):
    policy = lambda pieces: RoomIndexedBestFit(seq_len, pieces)  # noqa: E731
    return strategies._fit_decreasing("bfd", policy, lengths, seq_len, "split", False, 0)


def story_lengths() -> np.ndarray:
    stories = tinystories_documents()
    tokenizer = train_tokenizer(stories, 4096)
    return np.array([len(tokenizer.encode_ordinary(story)) + 1 for story in stories])  # + 1: the BOS


def best_time(pack, lengths, seq_len=SEQ_LEN, repeats=REPEATS):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = pack(lengths, seq_len)
        times.append(time.perf_counter() - start)
    return min(times), result


def peak_mb(pack, lengths, seq_len):
    """The most memory the call held at once, in MB (numpy arrays and Python objects alike)."""
    tracemalloc.start()
    try:
        pack(lengths, seq_len)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def library_fit(lengths, seq_len):
    """binpacking's fixed-volume packer (worst-fit decreasing, a scan of every bin per item)."""
    return SimpleNamespace(n_rows=len(binpacking.to_constant_volume(lengths.tolist(), seq_len)))


def long_rows(lengths):
    print(f"\nlong rows: time (best of {REPEATS}, one run where it takes seconds) and peak memory of one call")
    print(f"{'':22}{'documents':>10}{'L':>12}{'time (s)':>10}{'peak (MB)':>11}{'rows':>9}")
    packers = [("bfd", bfd), ("bfd, room-indexed", old_bfd)]
    if binpacking is None:
        print("(binpacking is not installed: pip install 'binpacking>=2' for the ratio against a library)")
    else:
        packers.append(("binpacking", library_fit))
    figures = {}
    for docs, seq_len in [(lengths[:2], 2**20), (lengths[:2], 10**7), (lengths[:2], 10**8), (lengths, LONG)]:
        for name, pack in packers:
            if pack is old_bfd and seq_len > 10**7:
                continue  # minutes and gigabytes: the case this benchmark exists for
            slow = (pack is old_bfd and seq_len > LONG) or (pack is library_fit and len(docs) > N_SCAN)
            seconds, result = best_time(pack, docs, seq_len, 1 if slow else REPEATS)
            mb = peak_mb(pack, docs, seq_len)
            figures[name, len(docs), seq_len] = seconds, mb
            print(f"{name:22}{len(docs):>10,}{seq_len:>12,}{seconds:>10.4f}{mb:>11.3f}{result.n_rows:>9,}")
    for n, seq_len in [(2, 2**20), (2, 10**7), (2, 10**8), (len(lengths), LONG)]:
        new_s, new_mb = figures["bfd", n, seq_len]
        for name, _ in packers[1:]:
            if (name, n, seq_len) in figures:
                s, mb = figures[name, n, seq_len]
                print(f"{n:,} documents at L = {seq_len:,}: {name} / bfd: time {s / new_s:,.1f}x, "
                      f"memory {mb / new_mb:,.1f}x")
    seconds, mb = figures["bfd", len(lengths), LONG]
    ok = seconds < LONG_TARGET_S and mb < LONG_TARGET_MB
    print(f"target: bfd on {len(lengths):,} at L = 2**20 in < {LONG_TARGET_S} s and < {LONG_TARGET_MB} MB: "
          f"{seconds:.2f} s, {mb:.0f} MB {'ok' if ok else 'MISSED'}")


def main():
    real = story_lengths()
    print(f"{len(real)} TinyStories stories: mean {real.mean():.1f} tokens, median {np.median(real):.0f}, "
          f"max {real.max()}; rows of {SEQ_LEN}")
    lengths = np.random.default_rng(0).choice(real, N_DOCS)
    print(f"{'':22}{'documents':>10}{'time (s)':>10}{'rows':>9}{'utilization':>13}")
    figures = {}
    for name, pack, docs in [("bfd", bfd, lengths), ("bfd, room-indexed", old_bfd, lengths), ("ffd", ffd, lengths),
                             ("bfd", bfd, lengths[:N_SCAN]), ("first-fit scan", ffd_scan, lengths[:N_SCAN])]:
        seconds, result = best_time(pack, docs, repeats=1 if pack is ffd_scan else REPEATS)
        figures[name, len(docs)] = seconds, result.n_rows
        print(f"{name:22}{len(docs):>10,}{seconds:>10.3f}{result.n_rows:>9,}{result.utilization:>13.4f}")
    (bfd_s, bfd_rows), (_, ffd_rows) = figures["bfd", N_DOCS], figures["ffd", N_DOCS]
    speedup = figures["first-fit scan", N_SCAN][0] / figures["bfd", N_SCAN][0]
    print(f"speedup of bfd over the first-fit scan on {N_SCAN:,} documents: {speedup:.0f}x; room-indexed / bfd "
          f"on {N_DOCS:,} at L = {SEQ_LEN}: {figures['bfd, room-indexed', N_DOCS][0] / bfd_s:.2f}x")
    print(f"target: bfd on {N_DOCS:,} in < 10 s: {bfd_s:.2f} s {'ok' if bfd_s < 10 else 'MISSED'}; "
          f"rows <= ffd: {bfd_rows:,} vs {ffd_rows:,} {'ok' if bfd_rows <= ffd_rows else 'MISSED'}")
    long_rows(lengths)


if __name__ == "__main__":
    main()
