"""The end of a prompt: unstable tokens, and token healing.

Cut a text in the middle of a word and the prompt's last token (" wor") is one the whole text never
uses (it has " world"). Token healing backs it off and lets the first generated token be any token
whose bytes begin with the removed bytes, so the model can choose " world" itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from tutorial_lib._check_data import check_callable
from tutorial_lib._checks import check_int_list, check_str, check_type

Encode = Callable[[str], Sequence[int]]
TokenBytes = Callable[[int], bytes]
# What one cut of a text gives. "stable": the prompt's tokens are a prefix of the text's. "healed":
# not, but backing off the prompt's last token leaves a prefix, and the text's next token begins
# with the removed bytes. "unhealed": one token of healing is not enough.
CUT_KINDS = ("stable", "healed", "unhealed")


@dataclass(frozen=True)
class Healed:
    """A prompt after token healing: `ids` without the last token, its bytes, the allowed ids."""

    ids: list[int]
    removed: bytes
    allowed: list[int]


def is_prefix(short: Sequence[int], long: Sequence[int]) -> bool:
    """True when `short` is the first len(short) ids of `long`."""
    return len(short) <= len(long) and list(long[:len(short)]) == list(short)


def heal(prompt_ids: Sequence[int], vocab: Mapping[int, bytes]) -> Healed:
    """Back off the prompt's last token (one, as guidance does by default); the continuation must
    start with its bytes: any token whose bytes begin with them is allowed."""
    ids = check_int_list(prompt_ids, "prompt_ids", low=0)
    if not ids:
        raise ValueError("prompt_ids must hold at least one id to back off")
    check_type(vocab, "vocab", Mapping, "a mapping id -> bytes")
    if ids[-1] not in vocab:
        raise ValueError(f"prompt_ids[-1] = {ids[-1]} is not an id of vocab")
    removed = vocab[ids[-1]]
    allowed = sorted(i for i, token in vocab.items() if token.startswith(removed))
    return Healed(ids[:-1], removed, allowed)


def _kind(full: list[int], prompt: list[int], token_bytes: TokenBytes) -> str:
    if is_prefix(prompt, full):
        return "stable"
    kept = prompt[:-1]
    if is_prefix(kept, full) and len(full) > len(kept):
        if token_bytes(full[len(kept)]).startswith(token_bytes(prompt[-1])):
            return "healed"
    return "unhealed"


def cut_place(text: str, cut: int) -> str:
    """Where a cut falls, in the words of chapter 05's table."""
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
    """How many cuts of each kind (`CUT_KINDS`), over every character position inside each of
    `texts`, grouped by `by(text, cut)` (`cut_place`: by what is on either side)."""
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
