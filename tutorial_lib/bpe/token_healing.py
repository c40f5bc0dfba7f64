"""The end of a prompt: unstable tokens, and token healing.

An encoder picks the tokens of the text it is given. Cut a text in the middle of a word and the
prompt's last token (" wor") is one the whole text never uses (it has " world"): the tokens of the
prefix are not a prefix of the tokens of the text. A model that continues such a prompt starts
from a boundary it rarely saw in training. Token healing backs off the prompt's last token and
lets the first generated token be any token whose bytes begin with the bytes it removed, so the
model can choose " world" itself.

Encoders and vocabularies are passed in (a function text -> ids, a function id -> bytes, a
mapping id -> bytes), so the same code measures tiktoken's cl100k and this library's Tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from tutorial_lib._check_data import check_callable
from tutorial_lib._checks import check_int, check_int_list, check_str, check_type

Encode = Callable[[str], Sequence[int]]
TokenBytes = Callable[[int], bytes]
CUT_KINDS = ("stable", "healed", "unhealed")  # what one cut of a text gives, see cut_kind


@dataclass(frozen=True)
class Healed:
    """A prompt after token healing: `ids` without the last token, that token's bytes, and the
    ids of every token the first generated token may be (its bytes begin with `removed`)."""

    ids: list[int]
    removed: bytes
    allowed: list[int]


def is_prefix(short: Sequence[int], long: Sequence[int]) -> bool:
    """True when `short` is the first len(short) ids of `long`."""
    return len(short) <= len(long) and list(long[:len(short)]) == list(short)


def tokens_starting_with(vocab: Mapping[int, bytes], prefix: bytes) -> list[int]:
    """Ids whose bytes begin with `prefix`, sorted: the first tokens token healing allows."""
    check_type(vocab, "vocab", Mapping, "a mapping id -> bytes")
    check_type(prefix, "prefix", bytes, "bytes")
    return sorted(i for i, token in vocab.items() if token.startswith(prefix))


def heal(prompt_ids: Sequence[int], vocab: Mapping[int, bytes]) -> Healed:
    """Back off the prompt's last token; the continuation must start with its bytes.

    One token is backed off, as guidance does by default; a prompt that ends inside a longer
    stretch may need more (`cut_kind` says how often one is enough).
    """
    ids = check_int_list(prompt_ids, "prompt_ids", low=0)
    if not ids:
        raise ValueError("prompt_ids must hold at least one id to back off")
    check_type(vocab, "vocab", Mapping, "a mapping id -> bytes")
    if ids[-1] not in vocab:
        raise ValueError(f"prompt_ids[-1] = {ids[-1]} is not an id of vocab")
    removed = vocab[ids[-1]]
    return Healed(ids[:-1], removed, tokens_starting_with(vocab, removed))


def cut_kind(encode: Encode, token_bytes: TokenBytes, text: str, cut: int) -> str:
    """What cutting `text` at character `cut` does to a prompt made of text[:cut].

    "stable": encode(text[:cut]) is a prefix of encode(text). "healed": it is not, but after
    backing off its last token the rest is a prefix and the text's next token begins with the
    removed bytes, so healing one token lets the model produce the text's own tokens.
    "unhealed": one token of healing is not enough (the cut changed more than the last token).
    """
    check_callable(encode, "encode", "a function text -> ids")
    check_callable(token_bytes, "token_bytes", "a function id -> bytes")
    check_str(text, "text")
    if len(text) < 2:
        raise ValueError(f"text must hold at least 2 characters to be cut, got {text!r}")
    check_int(cut, "cut", low=1, high=len(text) - 1)
    return _kind(list(encode(text)), list(encode(text[:cut])), token_bytes)


def _kind(full: list[int], prompt: list[int], token_bytes: TokenBytes) -> str:
    if is_prefix(prompt, full):
        return "stable"
    kept = prompt[:-1]
    if is_prefix(kept, full) and len(full) > len(kept):
        if token_bytes(full[len(kept)]).startswith(token_bytes(prompt[-1])):
            return "healed"
    return "unhealed"


def cut_place(text: str, cut: int) -> str:
    """Where a cut falls, in the words of chapter 05's table: before or after a space, inside an
    ASCII word or number, between two other letters (Han characters, accented letters), or next
    to punctuation or a line break."""
    before, after = text[cut - 1], text[cut]
    if after == " ":
        return "空格之前"
    if before == " ":
        return "空格之后"
    if before.isalnum() and after.isalnum():
        return "词中间" if before.isascii() and after.isascii() else "汉字等非 ASCII 文字之间"
    return "标点、换行旁"


def cut_kinds(encode: Encode, token_bytes: TokenBytes, texts: Iterable[str],
              by: Callable[[str, int], str] = lambda text, cut: "全部"
              ) -> dict[str, dict[str, int]]:
    """How many cuts of each kind (see `cut_kind`), over every character position inside each
    of `texts` (a text of n characters has n - 1 cuts), grouped by `by(text, cut)`
    (`cut_place` groups them by what is on either side)."""
    check_callable(encode, "encode", "a function text -> ids")
    check_callable(token_bytes, "token_bytes", "a function id -> bytes")
    check_callable(by, "by", "a function (text, cut) -> group name")
    counts: dict[str, dict[str, int]] = {}
    for k, text in enumerate(texts):
        check_str(text, f"texts[{k}]")
        full = list(encode(text))
        for cut in range(1, len(text)):
            group = counts.setdefault(by(text, cut), dict.fromkeys(CUT_KINDS, 0))
            group[_kind(full, list(encode(text[:cut])), token_bytes)] += 1
    return counts
