"""How fast is tutorial_lib.bpe.train_bpe? Wall time against Hugging Face tokenizers and our naive trainer.

    .venv/bin/python benchmarks/bench_bpe.py

Both trainers get the same list of texts, the same vocabulary size and GPT-2 byte-level pre-tokenization
(HF: ByteLevel(use_regex=True, add_prefix_space=False) with all 256 bytes in the alphabet). HF trains with
one thread per CPU by default; it is also timed with RAYON_NUM_THREADS=1 in a child process, since the
variable is read when the library starts. Each time is the best of a few runs.
Targets: within 5x of HF on TinyStories at vocab 5000; at least 20x faster than the naive trainer.
"""

import json
import os
import subprocess
import sys
import time

from tutorial_lib.bpe import train_bpe, train_bpe_naive
from tutorial_lib.data import ENDOFTEXT, load_text, tinystories_documents

REPEATS = 3


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


if __name__ == "__main__":
    if "--hf-times" in sys.argv:
        print(json.dumps(hf_times()))
    else:
        main()
