"""WordPiece as BERT encodes: split text into words, then each word by greedy longest match.

BERT (Devlin et al. 2019, google-research/bert `tokenization.py`) encodes in two steps.
`bert_pretokenize` is its BasicTokenizer: drop control characters, turn whitespace into spaces, put
spaces around every CJK ideograph (`tokenize_chinese_chars`: BERT's Chinese vocabulary holds single
Han characters, so a run of them must not stay one "word"), optionally lowercase and strip accents,
then make every punctuation mark a word. `encode_word` is its WordpieceTokenizer: from the left,
the longest vocabulary piece that starts here (after the first, with the prefix `##`); if some
position has no piece, or the word is over 100 characters, the whole word is `[UNK]`.

Longest match needs only the vocabulary, not the merges that built it, so it can differ from
replaying the training merges (`wordpiece_train.merge_encode`). `hf_tokenizer` builds Hugging
Face's pipeline with the same settings (its `BertNormalizer` does the cleanup and the CJK spaces).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from tutorial_lib._check_data import check_bool, check_str_list
from tutorial_lib._checks import check_int, check_str

UNK = "[UNK]"
PREFIX = "##"
MAX_INPUT_CHARS_PER_WORD = 100

# BERT's _is_chinese_char: the CJK Unified Ideographs blocks and their extensions and the
# compatibility ideographs. Hangul, kana and CJK punctuation are not in it.
CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
              (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_chinese_char(char: str) -> bool:
    """True for a CJK ideograph as BERT defines it (`CJK_RANGES`)."""
    cp = ord(char)
    return any(low <= cp <= high for low, high in CJK_RANGES)


def is_punctuation(char: str) -> bool:
    """BERT's rule: every non-alphanumeric ASCII symbol ($, +, ^ too) or a Unicode category P*."""
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _clean(char: str) -> str:
    """BERT's _clean_text for one character: controls and NUL/U+FFFD vanish, whitespace -> " "."""
    if char in " \t\n\r" or unicodedata.category(char) == "Zs":
        return " "
    if ord(char) in (0, 0xFFFD) or unicodedata.category(char).startswith("C"):
        return ""
    return char


def _table(chars: Iterable[str], tokenize_chinese_chars: bool, punctuation: bool) -> dict:
    """A str.translate table for the characters present: one pass over the text, not a Python loop
    per character (a corpus has millions of characters but a few thousand distinct ones)."""
    table = {}
    for char in chars:
        out = _clean(char)
        if out == char and (tokenize_chinese_chars and is_chinese_char(char)
                            or punctuation and is_punctuation(char)):
            out = f" {char} "
        if out != char:
            table[ord(char)] = out
    return table


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def bert_pretokenize(text: str, *, tokenize_chinese_chars: bool = True, lowercase: bool = False,
                     strip_accents: bool = False) -> list[str]:
    """The words of `text` as BERT's BasicTokenizer splits it. The defaults keep case and accents
    (a cased model); bert-base-uncased sets both to True."""
    check_str(text, "text", utf8=True)
    check_bool(tokenize_chinese_chars, "tokenize_chinese_chars")
    check_bool(lowercase, "lowercase")
    check_bool(strip_accents, "strip_accents")
    # splitting on punctuation = spaces around every punctuation mark, then split on whitespace
    if not (lowercase or strip_accents):
        return text.translate(_table(set(text), tokenize_chinese_chars, True)).split()
    text = text.translate(_table(set(text), tokenize_chinese_chars, False))
    if lowercase:
        text = text.lower()
    if strip_accents:
        text = _strip_accents(text)
    return text.translate(_table(set(text), False, True)).split()


def longest_piece(vocab: Mapping[str, Any] | set[str], prefix: str = PREFIX) -> int:
    """The length of the vocabulary's longest piece, its prefix not counted: no match is longer."""
    return max((len(piece.removeprefix(prefix)) for piece in vocab), default=0)


def encode_word(word: str, vocab: Mapping[str, Any] | set[str], *, unk_token: str = UNK,
                prefix: str = PREFIX, max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
                max_piece_chars: int | None = None) -> list[str]:
    """The pieces of one word by greedy longest match from the left, or [unk_token] if some position
    has no piece (the whole word, as in BERT). `max_piece_chars` is the longest piece's length
    without its prefix (measured from `vocab` when None): no candidate longer than that is tried,
    so the work is at most len(word) x max_piece_chars lookups, not len(word) squared."""
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    longest = longest_piece(vocab, prefix) if max_piece_chars is None else max_piece_chars
    pieces, start = [], 0
    while start < len(word):
        # the longest piece that starts here: try ends from the farthest back to start + 1
        for end in range(min(len(word), start + longest), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                break
        else:
            return [unk_token]
        pieces.append(piece)
        start = end
    return pieces


class WordPiece:
    """A WordPiece vocabulary (piece -> id) with BERT's pre-tokenizer and longest-match encoder."""

    def __init__(self, vocab: Mapping[str, int] | list[str], *, unk_token: str = UNK,
                 prefix: str = PREFIX, max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
                 tokenize_chinese_chars: bool = True, lowercase: bool = False,
                 strip_accents: bool = False) -> None:
        self.vocab = _check_vocab(vocab)
        self.unk_token = check_str(unk_token, "unk_token", non_empty=True)
        if unk_token not in self.vocab:
            raise ValueError(f"vocab must contain unk_token {unk_token!r} (the id of a word it "
                             "cannot cover); add it, e.g. as id 0")
        self.prefix = check_str(prefix, "prefix", non_empty=True)
        self.max_input_chars_per_word = check_int(max_input_chars_per_word,
                                                  "max_input_chars_per_word", low=1)
        self.options = {"tokenize_chinese_chars": tokenize_chinese_chars, "lowercase": lowercase,
                        "strip_accents": strip_accents}
        bert_pretokenize("", **self.options)  # checks the options
        self.id_to_piece = {i: p for p, i in self.vocab.items()}
        self._longest = longest_piece(self.vocab, self.prefix)
        self._cache: dict[str, list[str]] = {}

    def words(self, text: str) -> list[str]:
        """The pre-tokens (words) of `text`, as `bert_pretokenize` with this model's options."""
        return bert_pretokenize(text, **self.options)

    def tokenize_word(self, word: str) -> list[str]:
        """The pieces of one word (cached: a corpus repeats its words)."""
        pieces = self._cache.get(word)
        if pieces is None:
            pieces = encode_word(word, self.vocab, unk_token=self.unk_token, prefix=self.prefix,
                                 max_input_chars_per_word=self.max_input_chars_per_word,
                                 max_piece_chars=self._longest)
            self._cache[word] = pieces
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """The pieces of `text`."""
        return [p for word in self.words(text) for p in self.tokenize_word(word)]

    def encode(self, text: str) -> list[int]:
        """The ids of `text`."""
        vocab = self.vocab
        return [vocab[p] for word in self.words(text) for p in self.tokenize_word(word)]

    def decode(self, ids: Iterable[int]) -> str:
        """Pieces joined, words separated by one space, "##" glued on, as BERT's decoder: not the
        input back (whitespace is one space, punctuation spaced, a [UNK] word lost)."""
        pieces = []
        for i in ids:
            if check_int(i, "ids[]") not in self.id_to_piece:
                raise ValueError(f"ids[] must be ids of this vocabulary, got {i}")
            pieces.append(self.id_to_piece[i])
        return " ".join(pieces).replace(" " + self.prefix, "")


def _check_vocab(vocab: Mapping[str, int] | list[str]) -> dict[str, int]:
    """A piece -> id dict from a dict or a list of pieces (id = position), ids unique."""
    if isinstance(vocab, Mapping):
        check_str_list(list(vocab), "vocab")
        ids = [check_int(i, f"vocab[{p!r}]", low=0) for p, i in vocab.items()]
        if len(set(ids)) != len(ids):
            raise ValueError("vocab must give each piece its own id; some ids repeat")
        vocab = dict(vocab)
    else:
        pieces = check_str_list(vocab, "vocab")
        if len(set(pieces)) != len(pieces):
            raise ValueError("vocab must not list a piece twice")
        vocab = {p: i for i, p in enumerate(pieces)}
    if not vocab or "" in vocab:
        raise ValueError("vocab must be non-empty pieces; got an empty vocab or an empty piece")
    return vocab


def hf_tokenizer(model: WordPiece) -> Any:
    """Hugging Face's `tokenizers` pipeline with the same vocabulary and settings as `model` (no
    post-processor, so no [CLS]/[SEP] are added)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    hf = Tokenizer(models.WordPiece(model.vocab, unk_token=model.unk_token,
                                    continuing_subword_prefix=model.prefix,
                                    max_input_chars_per_word=model.max_input_chars_per_word))
    hf.normalizer = hf_normalizer(**model.options)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return hf


def hf_normalizer(*, tokenize_chinese_chars: bool = True, lowercase: bool = False,
                  strip_accents: bool = False) -> Any:
    """HF's BertNormalizer set as `bert_pretokenize` is (strip_accents explicit, not "as
    lowercase")."""
    from tokenizers import normalizers

    return normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=tokenize_chinese_chars,
                                      strip_accents=strip_accents, lowercase=lowercase)
