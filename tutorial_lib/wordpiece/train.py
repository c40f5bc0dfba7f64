"""WordPiece training by the likelihood score, and replaying its merges (which BERT never does).

Training (Schuster & Nakajima 2012, as the Hugging Face course describes it): every word starts as
its characters, all but the first with the continuation prefix (`hug` -> `h ##u ##g`); the
vocabulary starts as the special tokens and this alphabet. Each step merges the adjacent pair with
the highest score

    score(a, b) = freq(ab) / (freq(a) * freq(b))

(freq: occurrences in the corpus). BPE merges the most frequent pair; dividing by the parts'
frequencies favours a pair whose parts are rarely seen apart, the merge that raises the corpus's
likelihood under a unigram model the most. `##u` + `##g` -> `##ug`.

Ties: the highest score (equal fractions tie exactly: the division is correctly rounded), then the
higher count, then the smaller pair. A merge changes freq(a) and freq(b), so every pair holding a
or b (not only the merge's neighbours) goes back on the heap with its new score.

`merge_encode` replays the merges in training order; WordPiece encodes by longest match, and the
two can disagree with the same vocabulary (`merge_vs_longest_match` finds such words).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tutorial_lib._check_data import check_mapping_keys, check_str_list
from tutorial_lib._checks import check_int, check_int_list, check_iterable, check_str

# the left-to-right pair replacement BPE uses: it only compares symbols, so pieces work too
from tutorial_lib.bpe.merge import merge_unchecked
from tutorial_lib.wordpiece.model import PREFIX, UNK, WordPiece, bert_pretokenize, hf_normalizer

Pair = tuple[str, str]


@dataclass(frozen=True)
class Merge:
    """One training step: the pair merged, the new piece, its score and count at that moment."""

    pair: Pair
    piece: str
    score: float
    count: int


@dataclass(frozen=True)
class Trained:
    """What training learned: the vocabulary in id order and the merges in the order made."""

    vocab: list[str]
    merges: list[Merge]
    alphabet_size: int
    options: dict

    def model(self, unk_token: str = UNK) -> WordPiece:
        """The longest-match encoder over this vocabulary, with the training pre-tokenizer."""
        return WordPiece(self.vocab, unk_token=unk_token, **self.options)


def count_words(texts: Iterable[str], **options: bool) -> Counter:
    """How often each BERT pre-token occurs in `texts` (options as `bert_pretokenize`)."""
    counts: Counter = Counter()
    for i, text in enumerate(check_iterable(texts, "texts", "a list of str")):
        counts.update(bert_pretokenize(check_str(text, f"texts[{i}]"), **options))
    return counts


def split_word(word: str, prefix: str = PREFIX) -> list[str]:
    """A word as its starting symbols: the first character bare, the others prefixed."""
    return [word[0]] + [prefix + c for c in word[1:]]


def join(a: str, b: str, prefix: str = PREFIX) -> str:
    """The piece a merge makes: `h` + `##u` -> `hu`, `##u` + `##g` -> `##ug`."""
    return a + b.removeprefix(prefix)


class _State:
    """Words as symbol lists, and the counts the score needs, kept up to date merge by merge."""

    def __init__(self, counts: Counter, prefix: str) -> None:
        self.prefix = prefix
        self.words = [split_word(w, prefix) for w in sorted(counts)]
        self.freq = [counts[w] for w in sorted(counts)]
        self.pairs: Counter = Counter()
        self.where: defaultdict[Pair, set[int]] = defaultdict(set)
        self.symbols: Counter = Counter()
        self.touching: defaultdict[str, set[Pair]] = defaultdict(set)
        for i in range(len(self.words)):
            self._add(i, +1)

    def _add(self, i: int, sign: int) -> set[Pair]:
        """Add (sign=+1) or remove (-1) word i's symbols and pairs from the counts."""
        word, n = self.words[i], self.freq[i] * sign
        for s in word:
            self.symbols[s] += n
        changed = set(zip(word, word[1:]))
        for pair in zip(word, word[1:]):
            self.pairs[pair] += n
        for pair in changed:
            if sign > 0:
                self.where[pair].add(i)
                self.touching[pair[0]].add(pair)
                self.touching[pair[1]].add(pair)
            elif self.pairs[pair] == 0:
                del self.pairs[pair]
        return changed

    def key(self, pair: Pair) -> tuple[float, int, str, str]:
        """The heap key: the highest score first, then the higher count, then the smaller pair."""
        count = self.pairs[pair]
        return (-count / (self.symbols[pair[0]] * self.symbols[pair[1]]), -count, *pair)

    def merge(self, pair: Pair) -> set[Pair]:
        """Merge `pair` in every word that has it; the pairs whose score may have changed."""
        a, b = pair
        piece = join(a, b, self.prefix)
        changed = set()
        for i in sorted(self.where.pop(pair)):
            if pair not in zip(self.words[i], self.words[i][1:]):
                continue  # an earlier merge took this occurrence
            changed |= self._add(i, -1)
            self.words[i] = merge_unchecked(self.words[i], (a, b), piece)
            changed |= self._add(i, +1)
        for symbol in (a, b, piece):
            changed |= self.touching[symbol]
        return {p for p in changed if p in self.pairs}


def _word_counts(word_counts: object) -> Counter:
    counts = check_mapping_keys(word_counts, "word_counts", str, "a dict of word -> count")
    for word, n in counts.items():
        check_str(word, "word_counts key", non_empty=True)
        check_int(n, f"word_counts[{word!r}]", low=1)
    return Counter(counts)


def pair_scores(word_counts: Mapping[str, int], prefix: str = PREFIX) -> dict[Pair, float]:
    """The score freq(ab) / (freq(a) * freq(b)) of every adjacent pair before the first merge, as
    `train_wordpiece` ranks it (`word_counts`: word -> how often it occurs)."""
    state = _State(_word_counts(word_counts), prefix)
    return {pair: -state.key(pair)[0] for pair in sorted(state.pairs)}


def pair_counts(word_counts: Mapping[str, int], prefix: str = PREFIX) -> dict[Pair, int]:
    """freq(ab) of every adjacent pair before the first merge: the number BPE would rank by."""
    state = _State(_word_counts(word_counts), prefix)
    return {pair: state.pairs[pair] for pair in sorted(state.pairs)}


def best_pair(word_counts: Mapping[str, int], prefix: str = PREFIX) -> Pair | None:
    """The pair WordPiece merges first: highest score, then higher count, then the smaller pair;
    None when every word is a single character."""
    state = _State(_word_counts(word_counts), prefix)
    return min(state.pairs, key=state.key) if state.pairs else None


def train_wordpiece(texts: Iterable[str], vocab_size: int, *,
                    special_tokens: Iterable[str] = (UNK,), prefix: str = PREFIX,
                    **options: bool) -> Trained:
    """Train a WordPiece vocabulary of `vocab_size` pieces (specials + alphabet + merged pieces),
    fewer if the corpus runs out of pairs. `options` go to `bert_pretokenize`. Two merges can make
    the same piece (`a` + `##bc`, `ab` + `##c`); it then takes one id, as in HF's trainer.
    """
    specials = check_str_list(special_tokens, "special_tokens")
    check_str(prefix, "prefix", non_empty=True)
    counts = count_words(texts, **options)
    if not counts:
        raise ValueError("texts must contain some words; got an empty corpus (or only spaces)")
    state = _State(counts, prefix)
    alphabet = sorted({s for word in state.words for s in word})
    vocab = specials + [s for s in alphabet if s not in specials]
    if check_int(vocab_size, "vocab_size", low=1) < len(vocab):
        raise ValueError(f"vocab_size must be at least {len(vocab)}, the special tokens and the "
                         f"alphabet of {len(alphabet)} symbols this corpus starts from; got "
                         f"{vocab_size}")
    heap = [(state.key(p), p) for p in state.pairs]
    heapq.heapify(heap)
    known, merges = set(vocab), []
    while len(vocab) < vocab_size and heap:
        # the best pair: pop until an entry is up to date, merge it, push the pairs it changed
        key, pair = heapq.heappop(heap)
        if pair not in state.pairs or state.key(pair) != key:
            continue  # stale: a fresher entry for this pair is in the heap (or it is gone)
        merges.append(Merge(pair, join(*pair, prefix), -key[0], -key[1]))
        if merges[-1].piece not in known:
            known.add(merges[-1].piece)
            vocab.append(merges[-1].piece)
        for p in state.merge(pair):
            heapq.heappush(heap, (state.key(p), p))
    return Trained(vocab, merges, len(alphabet), dict(options))


def merge_ranks(merges: list[Merge]) -> dict[Pair, int]:
    """Each merged pair's rank; a pair can come back after its merge, and the first one counts."""
    rank: dict[Pair, int] = {}
    for r, m in enumerate(merges):
        rank.setdefault(m.pair, r)
    return rank


def merge_encode(word: str, merges: list[Merge] | dict[Pair, int], prefix: str = PREFIX
                 ) -> list[str]:
    """The pieces of `word` when the merges (a list, or its `merge_ranks`) are replayed in training
    order, BPE-style. Characters the training never saw stay single symbols."""
    symbols = split_word(check_str(word, "word", non_empty=True), prefix)
    rank = merges if isinstance(merges, dict) else merge_ranks(merges)
    while len(symbols) > 1:
        best, pair = min((rank.get(p, len(rank)), p) for p in zip(symbols, symbols[1:]))
        if best == len(rank):
            break
        symbols = merge_unchecked(symbols, pair, join(*pair, prefix))
    return symbols


@dataclass(frozen=True)
class Disagreement:
    """A word that longest match and merge replay cut differently, with the same vocabulary."""

    word: str
    count: int
    longest_match: list[str]
    merges: list[str]


def merge_vs_longest_match(texts: Iterable[str], trained: Trained) -> list[Disagreement]:
    """Every word of `texts` (most frequent first) whose two encodings differ: longest match takes
    the longest piece at each position, even one built from another split (`hugs`: `hug ##s` by
    merges, `hu ##gs` by longest match)."""
    model = trained.model()
    rank = merge_ranks(trained.merges)
    out = []
    for word, count in count_words(texts, **trained.options).most_common():
        longest = model.tokenize_word(word)
        if longest == [model.unk_token]:
            continue
        merged = merge_encode(word, rank, model.prefix)
        if merged != longest:
            out.append(Disagreement(word, count, longest, merged))
    return out


@dataclass(frozen=True)
class HFComparison:
    """Our score-trained vocabulary beside HF's frequency-trained one, same text and size.

    `same_words`: the share of word occurrences both cut alike; `differ`: the most frequent words
    they cut differently. HF breaks ties in thread order, so `shared` can move between runs.
    """

    vocab_size: int
    ours: int
    hf: int
    shared: int
    jaccard: float
    same_words: float
    ours_tokens_per_word: float
    hf_tokens_per_word: float
    differ: list[tuple[str, list[str], list[str]]]


def hf_train(texts: list[str], vocab_size: int, **options: bool) -> WordPiece:
    """HF's WordPieceTrainer (BPE by frequency, `##` prefix) with our pre-tokenizer, as a model."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.WordPiece(unk_token=UNK))
    hf.normalizer = hf_normalizer(**options)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=[UNK],
                                        show_progress=False)
    hf.train_from_iterator(texts, trainer)
    return WordPiece(hf.get_vocab(), **options)


def compare_with_hf(texts: Iterable[str], vocab_sizes: Iterable[int], *, examples: int = 8,
                    **options: bool) -> list[HFComparison]:
    """Train both rules on `texts` at each of `vocab_sizes` and measure how far apart they land.

    Ours is trained once, at the largest size: training adds one piece at a time whatever its
    target, so the vocabulary it has at a smaller size is the start of that one."""
    texts = check_str_list(list(check_iterable(texts, "texts")), "texts")
    sizes = check_int_list(vocab_sizes, "vocab_sizes", low=1)
    if not sizes:
        raise ValueError("vocab_sizes must hold at least one size, got none")
    largest = train_wordpiece(texts, max(sizes), **options)
    counts = count_words(texts, **options)
    return [_compare(largest, size, hf_train(texts, size, **options), counts, examples)
            for size in sizes]


def _compare(largest: Trained, size: int, hf: WordPiece, counts: Counter, examples: int
             ) -> HFComparison:
    # ours at `size`: the first `size` pieces of the largest training ([UNK], the alphabet at least)
    check_int(size, "each vocab size", low=1 + largest.alphabet_size)
    ours = WordPiece(largest.vocab[:size], **largest.options)
    a, b = set(ours.vocab), set(hf.vocab)
    same = total = ours_n = hf_n = 0
    differ = []
    for word, n in counts.most_common():
        x, y = ours.tokenize_word(word), hf.tokenize_word(word)
        total += n
        ours_n += n * len(x)
        hf_n += n * len(y)
        if x == y:
            same += n
        elif len(differ) < examples:
            differ.append((word, x, y))
    return HFComparison(size, len(a), len(b), len(a & b), len(a & b) / len(a | b),
                        same / total, ours_n / total, hf_n / total, differ)


@dataclass(frozen=True)
class UnkRate:
    """How much of a test text becomes [UNK] with one pre-tokenizer setting at train/encode time."""

    train_split: bool
    encode_split: bool
    unk_tokens: float
    unk_chars: float
    tokens_per_char: float


def unk_rates(train_texts: Iterable[str], tests: Mapping[str, Iterable[str]], vocab_size: int
              ) -> dict[str, list[UnkRate]]:
    """[UNK] with and without `tokenize_chinese_chars` (train split / encode split), for each test
    text of `tests` (name -> lines): without it a run of Han characters is one word, so one
    character the vocabulary lacks makes it all [UNK]. `unk_tokens`: the share of tokens that are
    [UNK]; `unk_chars`: of characters in [UNK] words. One training per train split serves all.
    """
    train = check_str_list(list(check_iterable(train_texts, "train_texts")), "train_texts")
    vocabs = {split: train_wordpiece(train, vocab_size, tokenize_chinese_chars=split).vocab
              for split in (True, False)}  # one training per train split serves every test
    rates: dict[str, list[UnkRate]] = {}
    for name, test in check_mapping_keys(tests, "tests", str, "a dict of name -> lines").items():
        test = list(check_iterable(test, f"tests[{name!r}]"))  # read three times below
        rates[name] = []
        for train_split, encode_split in ((True, True), (True, False), (False, False)):
            model = WordPiece(vocabs[train_split], tokenize_chinese_chars=encode_split)
            tokens = unk = chars = unk_chars = 0
            for word, n in count_words(test, tokenize_chinese_chars=encode_split).items():
                pieces = model.tokenize_word(word)
                tokens += n * len(pieces)
                chars += n * len(word)
                if pieces == [model.unk_token]:
                    unk += n
                    unk_chars += n * len(word)
            rates[name].append(UnkRate(train_split, encode_split, unk / tokens, unk_chars / chars,
                                       tokens / chars))
    return rates
