"""WordPiece beside Hugging Face tokenizers: training and encoding time, and what each trainer learns.

    .venv/bin/python benchmarks/bench_wordpiece.py

Text: Lu Xun + TinyStories (the whole bundled files), BERT pre-tokenization (cased, Han characters split).
Training: our `train_wordpiece` (score freq(ab) / (freq(a) freq(b))) and HF's WordPieceTrainer (the BPE
trainer: most frequent pair, `##` prefix), same text, same vocabulary size; ratio = our time / HF's time,
each the best of REPEATS runs, HF with its default threads. Encoding: our pure-Python `WordPiece.encode`
(cold: a fresh model, so every distinct word goes through longest match) and HF's `Tokenizer.encode` on the
same vocabulary, whole text in one call each; "same ids" checks they agree on all of it. Then the two
vocabularies side by side at VOCAB_SIZES (`compare_with_hf`), the words whose longest-match pieces differ
from replaying the training merges, and [UNK] with and without tokenize_chinese_chars (`unk_rates`).
HF's trainer is not deterministic from run to run (4 runs at 8000 differed by 10-12 pieces: ties between
equally frequent pairs fall as its threads count), so the shared counts move by a few pieces between runs;
ours is. Encoding ratio = HF's time / ours (above 1: ours faster; one `encode` call on a 2 MB string is not
HF's fast path, its batch API is). Target: training within 10x of HF, the same ids everywhere.
"""

from timing import best_of

from tutorial_lib import data
from tutorial_lib.wordpiece import model as wp
from tutorial_lib.wordpiece import train as wt

VOCAB_SIZES = (4000, 6000, 8000, 12000)
REPEATS = 3


def speed(texts, size):
    ours_s, trained = best_of(REPEATS, lambda: wt.train_wordpiece(texts, size))
    hf_s, _ = best_of(REPEATS, lambda: wt.hf_train(texts, size))
    print(f"train at {size}: ours {ours_s:.2f} s, HF {hf_s:.2f} s, ratio {ours_s / hf_s:.1f}x")
    text = "\n".join(texts)
    enc_s, ids = best_of(REPEATS, lambda: trained.model().encode(text))
    hf = wp.hf_tokenizer(trained.model())
    hf_enc_s, hf_ids = best_of(REPEATS, lambda: hf.encode(text).ids)
    mb = len(text.encode()) / 1e6
    print(f"encode {mb:.2f} MB: ours {mb / enc_s:.2f} MB/s, HF {mb / hf_enc_s:.2f} MB/s, ratio "
          f"{hf_enc_s / enc_s:.2f}x, same ids {ids == hf_ids}")


def vocabularies(texts):
    print("\nvocab   ours    HF  shared  jaccard  same-words  tokens/word ours  HF")
    for c in wt.compare_with_hf(texts, VOCAB_SIZES, examples=3):
        print(f"{c.vocab_size:5d} {c.ours:6d} {c.hf:5d} {c.shared:7d} {c.jaccard:8.3f} {c.same_words:11.3f} "
              f"{c.ours_tokens_per_word:12.3f} {c.hf_tokens_per_word:5.3f}")
        for word, ours, hf in c.differ:
            print(f"      {word!r}: ours {' '.join(ours)} | HF {' '.join(hf)}")


def replay(texts, size=8000):
    trained = wt.train_wordpiece(texts, size)
    found = wt.merge_vs_longest_match(texts, trained)
    words = sum(wt.count_words(texts).values())
    print(f"\nat {size}: {len(found)} distinct words ({sum(d.count for d in found)} of {words} "
          "occurrences) cut differently by longest match and by replaying the merges; the first:")
    for d in found[:5]:
        print(f"  {d.word!r} x{d.count}: longest {' '.join(d.longest_match)} | merges "
              f"{' '.join(d.merges)}")


def unknowns():
    luxun = data.load_text("luxun")
    lines = luxun.splitlines()
    cut = len(lines) * 9 // 10
    cases = [("Lu Xun 90% -> last 10%", lines[:cut], lines[cut:]),
             ("Lu Xun -> FLORES zho_Hans", [luxun], [data.load_text("flores/zho_Hans")]),
             ("Lu Xun -> Tatoeba cmn", [luxun], [data.load_text("tatoeba_cmn")])]
    print("\n[UNK] at vocab 6000 (train split / encode split: unk tokens, unk chars, tokens per char)")
    for name, train, test in cases:
        for r in wt.unk_rates(train, {name: test}, 6000)[name]:
            print(f"  {name:26s} {str(r.train_split):5s} / {str(r.encode_split):5s}: "
                  f"{r.unk_tokens:6.2%} {r.unk_chars:6.2%} {r.tokens_per_char:.3f}")


if __name__ == "__main__":
    texts = [data.load_text("luxun"), data.load_text("tinystories")]
    speed(texts, 8000)
    vocabularies(texts)
    replay(texts)
    unknowns()
