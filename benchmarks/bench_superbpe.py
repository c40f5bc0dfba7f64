"""SuperBPE on English and on Chinese: tokens per 1000 characters at the same vocabulary size, and time.

    .venv/bin/python benchmarks/bench_superbpe.py

SuperBPE's reported gain (Liu et al. 2025, English, vocabulary 200k: "up to 33% fewer tokens than BPE") comes
from merges across spaces. Under GPT-2's split pattern a run of Han characters is already one pre-token, so
Chinese has few spaces to bridge: what is left is punctuation and line ends. This measures both.

Text: TinyStories, its 1,727 stories, the first 90% to train on and the last 10% held out; Lu Xun, his
non-empty lines (one paragraph each), the first 90% to train, the last 10% held out. Each held-out story or
line is encoded on its own. Tokenizers: ordinary BPE (`trainer.train_tokenizer`, GPT-2 pattern) and `train_superbpe`
(GPT-2 pattern in stage 1, SUPERWORD_PATTERN in stage 2, SuperBPE's 4-word cap and ": " rule) with the
transition t at 50%, 80%, 90% of the vocabulary, at t = 256 (no stage 1: the paper's "BPE without
pre-tokenization", here with the same cap) and at t = V (stage-1 merges only, cut with the stage-2 pattern:
what the pattern alone changes). "vs BPE" = tokens / BPE's tokens - 1 on the same held-out text. BPE can run
out of pairs below the size asked for (TinyStories at 8192: every distinct word is one token by then); SuperBPE
then gets the entries BPE reached (V in the table), so that both always have the same number. "bridging" counts the stage-2 merges whose token spans more than one GPT-2
pre-token (`bridges_pretokens`); the others are ordinary in-word merges that stage 2 also learns.

Then the length of Chinese and English pre-tokens under GPT-2's pattern and of the stage-2 pieces
(`characters.pretoken_lengths`), superwords learned in each language at vocabulary 8192 and t = 50% (the
first ones, and the ones held-out text uses most), and training time on the whole corpora at vocabulary 8192: our plain `train_bpe`, our
SuperBPE at two transitions, and Hugging Face's BPE trainer (one thread, GPT-2 byte-level pre-tokenization;
it runs out of pairs below 8192 on TinyStories, so it is timed there at 8000). Each time is the best of
REPEATS runs. Ratio = our time / HF's time. Last, encoding speed: the whole corpus in one call by a fresh
(cold) BPE and SuperBPE `Tokenizer`, and by the same SuperBPE tokenizer in HF tokenizers (`hf_tokenizer`: a BPE
model behind a Split on the stage-2 pattern, as SuperBPE's tokenizer.json encodes); "same ids" compares ours
with HF's on the whole corpus.
"""

import time

from timing import best_of

from tutorial_lib import data
from tutorial_lib.evaluation import superbpe as sb
from tutorial_lib.text.characters import length_summary, pretoken_lengths
from tutorial_lib.text.compare import hf_train_seconds
from tutorial_lib.text.measure import compression, token_counts
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_bpe, train_tokenizer

VOCAB_SIZES = (4096, 8192)
SHARES = (0.5, 0.8, 0.9)
REPEATS = 3
EXAMPLES = 12


def splits():
    stories = data.tinystories_documents()
    lines = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    cut_s, cut_l = len(stories) * 9 // 10, len(lines) * 9 // 10
    return {"English (TinyStories)": (stories[:cut_s], stories[cut_s:]),
            "Chinese (Lu Xun)": (lines[:cut_l], lines[cut_l:])}


def per_1000(tokenizer, held_out):
    c = compression(tokenizer.encode_ordinary, held_out)
    return 1000 * c.tokens / c.chars, c.bytes_per_token


def bridging(tokenizer):
    return sum(sb.bridges_pretokens(a + b) for a, b in sb.superword_merges(tokenizer))


def table(name, train, held_out):
    print(f"\n{name}: {sum(map(len, train)):,} characters to train on, "
          f"{sum(map(len, held_out)):,} held out")
    print("  vocab  tokenizer             entries  tokens/1000 chars  bytes/token  vs BPE   "
          "stage-2 merges (bridging)")
    found = {}
    for asked in VOCAB_SIZES:
        bpe = train_tokenizer(train, asked)
        size = len(bpe.vocab)  # SuperBPE gets as many entries as BPE reached
        base, bpt = per_1000(bpe, held_out)
        print(f"  {asked:5d}  BPE (GPT-2 pattern)   {size:7d}  {base:17.1f}  {bpt:11.2f}")
        for t in [round(size * share) for share in SHARES] + [256, size]:
            tok = sb.train_superbpe(train, size, t)
            found[asked, t / size] = tok
            rate, bpt = per_1000(tok, held_out)
            n2 = len(sb.superword_merges(tok))
            label = f"SuperBPE t={t}" + (" (=V)" if t == size else "")
            print(f"  {asked:5d}  {label:20s}  {len(tok.vocab):7d}  {rate:17.1f}  {bpt:11.2f}  "
                  f"{rate / base - 1:+6.1%}  {n2:6d} ({bridging(tok)})")
    return found


def lengths(name, train):
    text = "\n".join(train)
    han = "Chinese" in name
    gpt2 = length_summary(pretoken_lengths(text, GPT2_PATTERN, han_only=han))
    stage2 = length_summary(pretoken_lengths(text, sb.SUPERWORD_PATTERN, han_only=False))
    what = "pre-tokens holding a Han character" if han else "all pre-tokens"
    for label, s in [(f"GPT-2, {what}", gpt2), ("stage-2 pieces (SUPERWORD_PATTERN)", stage2)]:
        print(f"  {name:22s} {label:42s} n={s.count:7d}  mean {s.mean:6.2f}  median {s.median:5.1f}  "
              f"p99 {s.p99:5d}  max {s.longest:5d} characters")


def examples(name, tokenizer, held_out):
    shown = lambda t: repr(t.decode("utf-8", errors="backslashreplace"))  # noqa: E731
    first = [a + b for a, b in sb.superword_merges(tokenizer) if sb.bridges_pretokens(a + b)]
    print(f"\n{name}, first {EXAMPLES} bridging superwords learned: "
          + ", ".join(map(shown, first[:EXAMPLES])))
    counts = token_counts(tokenizer.encode_ordinary, held_out)
    total = sum(counts.values())
    bridge = set(first)
    used = [(n, tokenizer.vocab[i]) for i, n in counts.items() if tokenizer.vocab[i] in bridge]
    used.sort(key=lambda x: (-x[0], x[1]))
    share = sum(n for n, _ in used) / total
    print(f"  held-out tokens that are bridging superwords: {share:.1%}; most used: "
          + ", ".join(f"{shown(t)} x{n}" for n, t in used[:EXAMPLES]))


def timing():
    print("\nTraining time on the whole corpus, vocabulary 8192, one core (best of "
          f"{REPEATS}); ratio = ours / HF")
    corpora = {"TinyStories": (data.tinystories_documents(), 8000),
               "Lu Xun": ([data.load_text("luxun")], 8192)}
    for name, (texts, hf_size) in corpora.items():
        hf = min(hf_train_seconds(texts, hf_size, threads=1) for _ in range(REPEATS))
        print(f"  {name:11s} HF BpeTrainer at {hf_size}, 1 thread: {hf:6.2f} s")
        plain_s, (vocab, _) = best_of(REPEATS, lambda: train_bpe(texts, 8192))
        print(f"  {name:11s} our train_bpe ({len(vocab)} entries): {plain_s:6.2f} s, "
              f"ratio {plain_s / hf:.1f}x")
        for t in (4096, 7373):
            s, tok = best_of(REPEATS, lambda: sb.train_superbpe(texts, 8192, t))
            print(f"  {name:11s} our train_superbpe t={t} ({len(tok.vocab)} entries): {s:6.2f} s, "
                  f"ratio {s / hf:.1f}x, {s / plain_s:.1f}x train_bpe")


def cold(make_encode, text):
    """Best of REPEATS, each with an encoder made afresh, so that nothing is cached yet."""
    times = []
    for _ in range(REPEATS):
        encode = make_encode()
        start = time.perf_counter()
        ids = encode(text)
        times.append(time.perf_counter() - start)
    return min(times), ids


def encoding():
    print("\nEncoding the whole corpus in one call at vocabulary 8192, t = 4096, cold (a fresh "
          f"tokenizer, best of {REPEATS}); HF = the SuperBPE tokenizer in HF tokenizers (`hf_tokenizer`)")
    corpora = {"TinyStories": data.tinystories_documents(), "Lu Xun": [data.load_text("luxun")]}
    for name, texts in corpora.items():
        text = "\n".join(texts)
        mb = len(text.encode()) / 1e6
        bpe = train_tokenizer(texts, 8192)
        tok = sb.train_superbpe(texts, 8192, 4096)
        encoders = {
            "BPE": lambda: Tokenizer(bpe.vocab, bpe.merges).encode_ordinary,
            "SuperBPE": lambda: Tokenizer(tok.vocab, tok.merges, (), tok.pattern).encode_ordinary,
            "HF SuperBPE": lambda: (lambda hf: lambda t: hf.encode(t).ids)(sb.hf_tokenizer(tok)),
        }
        runs = {label: cold(make, text) for label, make in encoders.items()}
        rate = {label: mb / seconds for label, (seconds, _) in runs.items()}
        same = runs["SuperBPE"][1] == runs["HF SuperBPE"][1]
        print(f"  {name:11s} " + ", ".join(f"{label} {r:.2f} MB/s" for label, r in rate.items())
              + f"; SuperBPE ours / HF {rate['SuperBPE'] / rate['HF SuperBPE']:.2f}x, same ids {same}")


if __name__ == "__main__":
    found = {}
    for name, (train, held_out) in splits().items():
        found[name] = table(name, train, held_out)
    print("\nPre-token lengths on the training text, in characters")
    for name, (train, _) in splits().items():
        lengths(name, train)
    for name, (_, held_out) in splits().items():
        examples(name, found[name][8192, 0.5], held_out)
    timing()
    encoding()
