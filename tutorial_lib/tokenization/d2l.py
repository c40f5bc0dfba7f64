"""Text before tokens: characters and bytes, D2L-style cleaning, char/word tokens and a `Vocab`.

Chapter 00 looks at the bytes of a string (`utf8_breakdown`). Chapter 01 follows the D2L recipe on The Time
Machine -- clean, tokenize by word or by character, number the tokens with a `Vocab` -- and then measures what
each granularity costs: vocabulary size, sequence length and the share of held-out tokens that become `<unk>`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

UNK = "<unk>"
TOKEN_KINDS = ("word", "char")
# D2L's cleaning rule: every run of characters that are not ASCII letters becomes one space.
NON_LETTERS = re.compile(r"[^A-Za-z]+")


def utf8_breakdown(text: str) -> list[tuple[str, str, str]]:
    """One row per character: (char, code point "U+XXXX", its UTF-8 bytes in hex).

    Shows why a model that reads bytes sees "你" as three tokens before any merge.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [(ch, f"U+{ord(ch):04X}", ch.encode("utf-8").hex(" ")) for ch in text]


# --- D2L cleaning and tokenization ----------------------------------------------------------------------------


def clean_line(line: str) -> str:
    """D2L's cleaning: non-letter runs -> one space, trim, lower-case ("Hello, World 1898!" -> "hello world").

    It makes counting easy for a first lesson and throws away punctuation, digits, case and every non-ASCII
    letter ("café" -> "caf"), which is exactly what a modern byte-level tokenizer refuses to do.
    """
    if not isinstance(line, str):
        raise TypeError(f"line must be a str, got {type(line).__name__}")
    return NON_LETTERS.sub(" ", line).strip().lower()


def read_time_machine() -> list[str]:
    """The bundled The Time Machine, one cleaned str per line of the file (D2L's `read_time_machine`)."""
    from tutorial_lib import data

    return [clean_line(line) for line in data.load_text("timemachine").splitlines()]


def tokenize(lines: Sequence[str], token: str = "word") -> list[list[str]]:
    """Split each line into tokens: "word" splits on whitespace, "char" keeps every character (spaces too).

    One list per line, so empty lines stay visible as [] and line i of the input is row i of the output.
    """
    if isinstance(lines, str) or not isinstance(lines, Sequence):
        raise TypeError(f"lines must be a list of str, got {type(lines).__name__}")
    if token not in TOKEN_KINDS:
        raise ValueError(f"token must be one of {TOKEN_KINDS}, got {token!r}")
    for i, line in enumerate(lines):
        if not isinstance(line, str):
            raise TypeError(f"lines[{i}] must be a str, got {type(line).__name__}")
    return [line.split() for line in lines] if token == "word" else [list(line) for line in lines]


def flatten(tokens: Iterable[str] | Iterable[Sequence[str]]) -> list[str]:
    """A flat list of str tokens from either a flat list or a list of lines (D2L's `count_corpus` accepts both)."""
    if isinstance(tokens, str) or not isinstance(tokens, Iterable):
        raise TypeError(f"tokens must be a list of str or a list of lists of str, got {type(tokens).__name__}")
    flat: list[str] = []
    for item in tokens:
        if isinstance(item, str):
            flat.append(item)
        elif isinstance(item, (list, tuple)) and all(isinstance(t, str) for t in item):
            flat.extend(item)
        else:
            raise TypeError(f"tokens must contain str or lists of str, got an item {item!r}")
    return flat


def count_tokens(tokens: Iterable[str] | Iterable[Sequence[str]]) -> Counter[str]:
    """How often each token occurs; keys keep first-appearance order, which `Vocab` uses to break ties."""
    return Counter(flatten(tokens))


def frequencies_by_rank(tokens: Iterable[str] | Iterable[Sequence[str]]) -> list[int]:
    """Token counts from the most to the least frequent: the y-values of a Zipf plot (x = rank 1, 2, ...)."""
    return sorted(count_tokens(tokens).values(), reverse=True)


# --- Vocab ---------------------------------------------------------------------------------------------------


class Vocab:
    """Token <-> id table: `<unk>` is 0, then the reserved tokens, then corpus tokens by falling frequency.

    Frequency order puts the tokens a model meets most often on small, stable ids. Ties keep the order in which
    the tokens first appear in the corpus (a stable sort over a Counter, as in D2L), so the same corpus always
    gives the same ids. Tokens seen fewer than `min_freq` times get no id and are looked up as `<unk>`.
    """

    def __init__(self, tokens: Iterable[str] | Iterable[Sequence[str]] = (), min_freq: int = 0,
                 reserved_tokens: Sequence[str] = ()) -> None:
        if isinstance(min_freq, bool) or not isinstance(min_freq, int):
            raise TypeError(f"min_freq must be an int, got {type(min_freq).__name__}")
        if min_freq < 0:
            raise ValueError(f"min_freq must be >= 0, got {min_freq}")
        if isinstance(reserved_tokens, str) or not isinstance(reserved_tokens, Sequence):
            raise TypeError(f"reserved_tokens must be a list of str, got {type(reserved_tokens).__name__}")
        if not all(isinstance(t, str) for t in reserved_tokens):
            raise TypeError(f"reserved_tokens must be a list of str, got {list(reserved_tokens)!r}")
        if UNK in reserved_tokens or len(set(reserved_tokens)) != len(reserved_tokens):
            raise ValueError(f"reserved_tokens must be distinct and must not contain {UNK!r} (it is always id 0), "
                             f"got {list(reserved_tokens)!r}")
        counts = count_tokens(tokens)
        self.token_freqs: list[tuple[str, int]] = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)
        self.idx_to_token: list[str] = [UNK, *reserved_tokens]
        self.token_to_idx: dict[str, int] = {t: i for i, t in enumerate(self.idx_to_token)}
        for token, freq in self.token_freqs:
            if freq < min_freq:
                break
            if token not in self.token_to_idx:
                self.token_to_idx[token] = len(self.idx_to_token)
                self.idx_to_token.append(token)

    @property
    def unk(self) -> int:
        """The id every unknown token gets."""
        return 0

    def __len__(self) -> int:
        return len(self.idx_to_token)

    def __contains__(self, token: object) -> bool:
        return token in self.token_to_idx

    def __getitem__(self, tokens: str | Sequence[str]) -> int | list[int]:
        """Id of one token, or a list of ids for a list/tuple of tokens; unknown tokens give `unk` (0)."""
        if isinstance(tokens, str):
            return self.token_to_idx.get(tokens, self.unk)
        if isinstance(tokens, (list, tuple)):
            return [self[t] for t in tokens]
        raise TypeError(f"tokens must be a str or a list/tuple of str, got {type(tokens).__name__}")

    def to_tokens(self, indices: int | Sequence[int]) -> str | list[str]:
        """Token of one id, or a list of tokens for a list/tuple of ids."""
        if isinstance(indices, (list, tuple)):
            return [self.to_tokens(i) for i in indices]
        if isinstance(indices, bool) or not isinstance(indices, int):
            raise TypeError(f"indices must be an int or a list/tuple of int, got {type(indices).__name__}")
        if not 0 <= indices < len(self):
            raise ValueError(f"indices must be in 0..{len(self) - 1}, got {indices}")
        return self.idx_to_token[indices]

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)}, first={self.idx_to_token[:5]})"


def load_corpus_time_machine(max_tokens: int | None = None, token: str = "char") -> tuple[list[int], Vocab]:
    """D2L's `load_corpus_time_machine`: all lines cleaned, tokenized, numbered and flattened into one id list.

    `max_tokens` keeps only the first ids (D2L's -1 "all" is `None` here).
    """
    if max_tokens is not None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
            raise TypeError(f"max_tokens must be None or an int, got {type(max_tokens).__name__}")
        if max_tokens <= 0:
            raise ValueError(f"max_tokens must be None or > 0, got {max_tokens}")
    tokens = tokenize(read_time_machine(), token)
    vocab = Vocab(tokens)
    corpus = [vocab[t] for line in tokens for t in line]
    return (corpus if max_tokens is None else corpus[:max_tokens]), vocab


# --- what the cleaning threw away ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CleaningReport:
    """What `clean_line` changed in a list of raw lines (line breaks themselves are not counted)."""

    chars_before: int
    chars_after: int
    lowercased: int  # upper-case ASCII letters that became lower case
    replaced: Counter[str]  # every non-letter character of the raw lines, by character (each run -> one space)
    split_words: Counter[str]  # whitespace-separated raw words whose letters the cleaning cut into 2+ words

    def by_category(self) -> dict[str, int]:
        """`replaced` summed by Unicode category: punctuation, digits, whitespace, other."""
        out = {"punctuation": 0, "digits": 0, "whitespace": 0, "other": 0}
        for ch, n in self.replaced.items():
            cat = unicodedata.category(ch)
            key = ("whitespace" if ch.isspace() else "digits" if cat == "Nd"
                   else "punctuation" if cat[0] in "PS" else "other")
            out[key] += n
        return out


def cleaning_report(raw_lines: Sequence[str]) -> CleaningReport:
    """Measure what D2L cleaning removes, so a notebook can show it instead of asserting it."""
    if isinstance(raw_lines, str) or not isinstance(raw_lines, Sequence):
        raise TypeError(f"raw_lines must be a list of str, got {type(raw_lines).__name__}")
    before = after = lowered = 0
    replaced: Counter[str] = Counter()
    split: Counter[str] = Counter()
    for i, line in enumerate(raw_lines):
        if not isinstance(line, str):
            raise TypeError(f"raw_lines[{i}] must be a str, got {type(line).__name__}")
        line = line.rstrip("\r\n")
        before += len(line)
        after += len(clean_line(line))
        lowered += sum(1 for ch in line if "A" <= ch <= "Z")
        replaced.update(m.group(0) for m in re.finditer(r"[^A-Za-z]", line))
        for word in line.split():
            if len(clean_line(word).split()) > 1:
                split[word] += 1
    return CleaningReport(before, after, lowered, replaced, split)


# --- measuring the trade-off ---------------------------------------------------------------------------------


def split_lines(lines: Sequence[str], train_fraction: float = 0.9) -> tuple[list[str], list[str]]:
    """First `train_fraction` of the lines for training, the rest held out: a split in reading order.

    Not shuffled on purpose: a later part of a book has names and words the earlier part never used, which
    is what unknown words look like in practice.
    """
    if isinstance(lines, str) or not isinstance(lines, Sequence):
        raise TypeError(f"lines must be a list of str, got {type(lines).__name__}")
    if not isinstance(train_fraction, (int, float)) or isinstance(train_fraction, bool):
        raise TypeError(f"train_fraction must be a float, got {type(train_fraction).__name__}")
    cut = int(len(lines) * train_fraction)
    if not 0 < cut < len(lines):
        raise ValueError(f"train_fraction must leave both parts non-empty (0 < fraction < 1), got {train_fraction} "
                         f"for {len(lines)} lines")
    return list(lines[:cut]), list(lines[cut:])


def oov_rate(vocab: Vocab, tokens: Iterable[str] | Iterable[Sequence[str]]) -> float:
    """Share of tokens (counted with repetition, not distinct types) that `vocab` maps to `<unk>`."""
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}")
    flat = flatten(tokens)
    if not flat:
        raise ValueError("tokens must not be empty (the rate of an empty text is undefined)")
    return sum(1 for t in flat if t not in vocab) / len(flat)


@dataclass(frozen=True)
class Measurement:
    """One row of the granularity comparison, measured on the same held-out lines."""

    name: str
    vocab_size: int
    tokens: int  # sequence length: total tokens over all lines
    words: int  # whitespace-separated words in the same lines, to put `tokens` on a per-word scale
    unknown: int  # tokens that are the unknown id
    lossless_lines: int  # lines that decode(encode(line)) gives back exactly
    lines: int

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words

    @property
    def oov_rate(self) -> float:
        return self.unknown / self.tokens

    @property
    def lossless(self) -> bool:
        return self.lossless_lines == self.lines


def measure(name: str, vocab_size: int, encode: Callable[[str], list[int]], decode: Callable[[list[int]], str],
            lines: Sequence[str], unk_id: int | None = None) -> Measurement:
    """Encode every line, count tokens and `unk_id` hits, and check that decoding gives each line back.

    `unk_id=None` means the tokenizer has no unknown id (byte-level BPE); the round trip is then the evidence
    that nothing was lost.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 0:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
    if not (callable(encode) and callable(decode)):
        raise TypeError("encode and decode must be callables (str -> list[int], list[int] -> str)")
    if isinstance(lines, str) or not isinstance(lines, Sequence):
        raise TypeError(f"lines must be a list of str, got {type(lines).__name__}")
    if not any(lines):
        raise ValueError("lines must contain some text (all lines are empty or there are none)")
    tokens = words = unknown = lossless = 0
    for line in lines:
        ids = encode(line)
        tokens += len(ids)
        words += len(line.split())
        unknown += 0 if unk_id is None else sum(1 for i in ids if i == unk_id)
        lossless += decode(ids) == line
    return Measurement(name, vocab_size, tokens, words, unknown, lossless, len(lines))


def measure_vocab(name: str, vocab: Vocab, lines: Sequence[str], token: str = "word") -> Measurement:
    """`measure` for a char or word `Vocab`: unknown tokens are id 0, and decoding joins the tokens back
    (with spaces for words), so a line comes back exactly only if none of its tokens was unknown."""
    if not isinstance(vocab, Vocab):
        raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}")
    if token not in TOKEN_KINDS:
        raise ValueError(f"token must be one of {TOKEN_KINDS}, got {token!r}")
    sep = " " if token == "word" else ""
    split: Callable[[str], list[str]] = str.split if token == "word" else list
    return measure(name, len(vocab), lambda line: vocab[split(line)], lambda ids: sep.join(vocab.to_tokens(ids)),
                   lines, unk_id=vocab.unk)


def measure_tokenizer(name: str, tokenizer: object, lines: Sequence[str]) -> Measurement:
    """`measure` for a byte-level tokenizer (`encode_ordinary`, `decode`, `vocab_size`): it has no unknown id."""
    if not all(hasattr(tokenizer, a) for a in ("encode_ordinary", "decode", "vocab_size")):
        raise TypeError(f"tokenizer must have encode_ordinary, decode and vocab_size, got {type(tokenizer).__name__}")
    return measure(name, tokenizer.vocab_size, tokenizer.encode_ordinary, tokenizer.decode, lines)


def measurement_rows(measurements: Iterable[Measurement]) -> list[tuple]:
    """Table rows (name, vocabulary size, tokens, tokens/word, OOV rate in %, lines restored exactly)."""
    return [(m.name, m.vocab_size, m.tokens, f"{m.tokens_per_word:.2f}", f"{100 * m.oov_rate:.2f}%",
             f"{m.lossless_lines}/{m.lines}") for m in measurements]


# --- one sentence, three granularities -----------------------------------------------------------------------


def visible(piece: str) -> str:
    """A token with its spaces shown as "␣", so " love" and "love" look different in a table."""
    return piece.replace(" ", "␣")


def token_pieces(tokenizer: object, ids: Sequence[int]) -> list[str]:
    """Each id as its own piece of text; a byte that is only part of a UTF-8 character shows as "\\xe5".

    Decoding ids one at a time is how you look inside a segmentation, but "分" is three byte tokens until
    merged and none of them is a character by itself: its byte says more than three U+FFFD marks would.
    Uses `tokenizer.token_bytes(id)` when there is one, else `tokenizer.decode([id])`.
    """
    if hasattr(tokenizer, "token_bytes"):
        return [tokenizer.token_bytes(i).decode("utf-8", errors="backslashreplace") for i in ids]
    if hasattr(tokenizer, "decode"):
        return [tokenizer.decode([i]) for i in ids]
    raise TypeError(f"tokenizer must have token_bytes or decode, got {type(tokenizer).__name__}")


def segmentations(text: str, word_vocab: Vocab,
                  tokenizers: Mapping[str, object] | None = None) -> list[tuple[str, list[str]]]:
    """(name, pieces) for "char" and "word" (after D2L cleaning, unknown words shown as `<unk>`) and for each
    byte-level tokenizer (on the raw text, pieces from `token_pieces`).

    A tokenizer is anything with `encode_ordinary(str) -> list[int]` and `token_bytes(id)` or `decode(ids)`.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not isinstance(word_vocab, Vocab):
        raise TypeError(f"word_vocab must be a Vocab, got {type(word_vocab).__name__}")
    cleaned = clean_line(text)
    rows = [("char", list(cleaned)), ("word", [w if w in word_vocab else UNK for w in cleaned.split()])]
    for name, tok in (tokenizers or {}).items():
        if not hasattr(tok, "encode_ordinary"):
            raise TypeError(f"tokenizers[{name!r}] must have encode_ordinary, got {type(tok).__name__}")
        rows.append((name, token_pieces(tok, tok.encode_ordinary(text))))
    return rows
