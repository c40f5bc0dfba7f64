"""Training mixes: one vocabulary for English and Chinese, and who gets how much of it.

BPE merges whatever pair is most frequent, so a language with more bytes in the training mix gets
more of the vocabulary. This module trains BPE (and Unigram) on English/Chinese mixes, measures on
held-out parallel text (FLORES-200 eng/zho) what each mix buys each language (`score`), what each
vocabulary learned (`learned_scripts`), and what a fixed quota of merges per language would cost
instead (`quota_tokenizer`).

Shares are of UTF-8 bytes, not characters: bytes are the unit byte-level merges compete in, and a
Han character is 3 bytes and carries about as much meaning as a few Latin letters, so parallel
sentences have roughly as many bytes in both languages, while by characters a "50/50" mix would
give Chinese about three times the content of English.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Sequence

from tutorial_lib import data
from tutorial_lib._check_data import check_number, check_str_list
from tutorial_lib._checks import check_int, check_sequence, check_str, check_type
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.evaluation.evaluate import Premium, token_premium
from tutorial_lib.text.model_tokenizers import VocabScripts, vocab_scripts
from tutorial_lib.text import compare
from tutorial_lib.text.measure import Segmenter
from tutorial_lib.unigram import train as unigram_train

MIXES = ((1.0, 0.0), (0.8, 0.2), (0.5, 0.5), (0.2, 0.8))  # (English, Chinese) byte shares
SHARE_TOLERANCE = 1e-9


def take_bytes(texts: Sequence[str], budget: int, name: str = "texts") -> list[str]:
    """Whole texts from the start of `texts` until `budget` UTF-8 bytes, the last one cut at a
    character boundary so the total is at most `budget` and less by under one character."""
    texts = check_str_list(texts, name)
    budget = check_int(budget, "budget", low=0)
    taken, left = [], budget
    for text in texts:
        raw = text.encode("utf-8")
        piece = raw[:left].decode("utf-8", errors="ignore")  # a cut character is left out
        if piece:
            taken.append(piece)
        left -= len(piece.encode("utf-8"))
        if len(raw) > len(piece.encode("utf-8")):
            break  # this text was cut: the budget is spent
    else:
        if left > 0:
            raise ValueError(f"{name} holds {budget - left} bytes, fewer than the {budget} asked "
                             "for")
    return taken


def corpora(budget: int) -> tuple[list[str], list[str]]:
    """(English, Chinese) pools of at least `budget` bytes each from the bundled corpora:
    TinyStories stories; Lu Xun's paragraphs and Tatoeba sentences, half the bytes each."""
    budget = check_int(budget, "budget", low=1)
    luxun = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    tatoeba = data.load_text("tatoeba_cmn").splitlines()
    luxun = take_bytes(luxun, budget // 2 + 4, "Lu Xun")  # + 4: a cut character left out
    chinese = luxun + take_bytes(tatoeba, budget - _bytes(luxun) + 4, "Tatoeba")
    return take_bytes(data.tinystories_documents(), budget + 4, "TinyStories"), chinese


@dataclass(frozen=True)
class Mix:
    """The training text of one English/Chinese mix, each language's part kept apart."""

    english_share: float  # of the bytes
    english: tuple[str, ...]
    chinese: tuple[str, ...]

    @property
    def texts(self) -> list[str]:
        """The whole training text: English, then Chinese (the order does not change what BPE or
        Unigram learn)."""
        return [*self.english, *self.chinese]

    @property
    def english_bytes(self) -> int:
        return _bytes(self.english)

    @property
    def chinese_bytes(self) -> int:
        return _bytes(self.chinese)

    @property
    def label(self) -> str:
        english = round(100 * self.english_share)
        return f"英{english}/中{100 - english}"


def check_shares(shares: object) -> tuple[float, float]:
    """(English, Chinese) shares: two numbers >= 0 that sum to 1."""
    pair = check_sequence(shares, "shares", "a pair (English share, Chinese share)")
    if len(pair) != 2:
        raise ValueError(f"shares must be a pair (English, Chinese), got {len(pair)} items")
    english, chinese = (check_number(s, f"shares[{i}]", low=0, high=1) for i, s in enumerate(pair))
    if abs(english + chinese - 1) > SHARE_TOLERANCE:
        raise ValueError(f"shares must sum to 1, got {english} + {chinese} = {english + chinese}")
    return float(english), float(chinese)


def make_mix(english: Sequence[str], chinese: Sequence[str], shares: Sequence[float],
             total_bytes: int) -> Mix:
    """`total_bytes` of training text, `shares` = (English, Chinese) of it, from the pools."""
    english_share, _ = check_shares(shares)
    total_bytes = check_int(total_bytes, "total_bytes", low=1)
    english_budget = round(english_share * total_bytes)
    for pool, name, budget in ((english, "english", english_budget),
                               (chinese, "chinese", total_bytes - english_budget)):
        if budget and not "".join(check_str_list(pool, name)).strip():
            raise ValueError(f"{name} must hold some text for a share above 0, got an empty pool")
    en = take_bytes(english, english_budget, "english")
    zh = take_bytes(chinese, total_bytes - english_budget, "chinese")
    return Mix(english_share, tuple(en), tuple(zh))


def _bytes(texts: Sequence[str]) -> int:
    return sum(len(t.encode("utf-8")) for t in texts)


def train_bpe(mix: Mix, vocab_size: int) -> Tokenizer:
    """Byte-level BPE (GPT-2's pattern) on the mix; cut smaller sizes with `vocab_size.at_size`."""
    check_type(mix, "mix", Mix, "a Mix (make_mix)")
    return train_tokenizer(mix.texts, check_int(vocab_size, "vocab_size", low=257))


def train_each(mix: Mix, vocab_size: int) -> tuple[Tokenizer, Tokenizer]:
    """BPE on the mix's English part alone and on its Chinese part alone: the two lists a fixed
    quota takes its merges from, trained on exactly the text the mixed run saw."""
    check_type(mix, "mix", Mix, "a Mix (make_mix)")
    vocab_size = check_int(vocab_size, "vocab_size", low=257)  # the 256 bytes and one merge
    if not mix.english or not mix.chinese:
        raise ValueError(f"mix must hold both languages, got {mix.label}")
    return train_tokenizer(list(mix.english), vocab_size), train_tokenizer(list(mix.chinese),
                                                                          vocab_size)


def train_unigram(mix: Mix, vocab_size: int) -> unigram_train.UnigramResult:
    """Our Unigram (`unigram_train.train_unigram`) on the mix; every character is a piece, so
    `vocab_size` must be at least the mix's alphabet (a ValueError says how large that is)."""
    check_type(mix, "mix", Mix, "a Mix (make_mix)")
    return unigram_train.train_unigram("\n".join(mix.texts),
                                       check_int(vocab_size, "vocab_size", low=2))


@dataclass(frozen=True)
class MixScore:
    """One tokenizer on parallel English and Chinese lines."""

    name: str
    english_bytes_per_token: float
    chinese_bytes_per_token: float
    chinese_premium: Premium  # tokens(Chinese) / tokens(English), per sentence
    english_premium: Premium  # tokens(English) / tokens(Chinese): the same, the other way round


def score(segmenter: Segmenter, lines: int | None = None) -> MixScore:
    """Bytes per token and both premiums on the first `lines` FLORES eng/zho sentences (all
    1,012 by default); each sentence is encoded once."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter (compare.from_tokenizer, ...)")
    english, chinese = data.load_parallel("eng_Latn"), data.load_parallel("zho_Hans")
    if lines is not None:
        lines = check_int(lines, "lines", low=1, high=len(english))
        english, chinese = english[:lines], chinese[:lines]
    cached = replace(segmenter, encode=functools.lru_cache(maxsize=None)(segmenter.encode))
    zh = token_premium(cached, chinese, english, "zho_Hans")
    en = token_premium(cached, english, chinese, "eng_Latn")
    return MixScore(segmenter.name, _bytes(english) / zh.english_tokens,
                    _bytes(chinese) / zh.tokens, zh, en)


def learned_scripts(name: str, model: Any) -> VocabScripts:
    """`vocab_scripts` of the learned entries only: a BPE `Tokenizer`'s merges (not the 256
    bytes) or a Unigram model's pieces (not its byte-fallback pieces, "▁" read as a space)."""
    name = check_str(name, "name")
    if isinstance(model, Tokenizer):
        tokens = [a + b for a, b in model.merges]
    else:
        pieces = compare.from_unigram(name, model)
        tokens = [pieces.token_bytes(i) for i in range(len(model.log_probs))]
    return vocab_scripts(Segmenter(name, len(tokens), lambda _: [], tokens.__getitem__))


def quota_tokenizer(english: Tokenizer, chinese: Tokenizer, english_merges: int,
                    chinese_merges: int) -> Tokenizer:
    """The first `english_merges` merges of `english` and the first `chinese_merges` of `chinese`
    in one tokenizer: a fixed quota per language, each filled from its own language's training.

    The two lists are interleaved by relative rank (merge i of n comes at i / n), so each
    language's early, frequent merges stay early; a merge whose token the other list already made
    is dropped, so the result can be a few entries short. Both must be plain BPE, one pattern.
    """
    for name, tok in (("english", english), ("chinese", chinese)):
        check_type(tok, name, Tokenizer, "a Tokenizer")
        if tok.special_tokens:
            raise ValueError(f"{name} must have no special tokens, got {list(tok.special_tokens)}")
    if english.pattern != chinese.pattern:
        raise ValueError("english and chinese must use the same split pattern")
    english_merges = check_int(english_merges, "english_merges", low=0, high=len(english.merges))
    chinese_merges = check_int(chinese_merges, "chinese_merges", low=0, high=len(chinese.merges))
    ranked = sorted([((i + 1) / english_merges, 0, m) for i, m in
                     enumerate(english.merges[:english_merges])]
                    + [((i + 1) / chinese_merges, 1, m) for i, m in
                       enumerate(chinese.merges[:chinese_merges])])
    vocab = {i: bytes([i]) for i in range(256)}
    made, merges = set(vocab.values()), []
    # Walk the interleaved merges; a token already made is skipped, its later merges still find it.
    for _, _, (left, right) in ranked:
        if left + right in made:
            continue
        made.add(left + right)
        vocab[len(vocab)] = left + right
        merges.append((left, right))
    metadata = {"quota": {"english_merges": english_merges, "chinese_merges": chinese_merges}}
    return Tokenizer(vocab, merges, (), english.pattern, metadata)


def quota_split(english: Tokenizer, chinese: Tokenizer, merges: int, english_share: float
                ) -> Tokenizer:
    """`quota_tokenizer` with `merges` learned entries, `english_share` of them English's."""
    merges = check_int(merges, "merges", low=0)
    english_share = check_number(english_share, "english_share", low=0, high=1)
    english_merges = round(english_share * merges)
    return quota_tokenizer(english, chinese, english_merges, merges - english_merges)
