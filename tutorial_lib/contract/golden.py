"""Golden vectors: inputs that exercise the tricky corners of a tokenizer, with what it must give.

The digest (`manifest.digest`) says only THAT a tokenizer changed. Golden vectors say WHERE: each
category below is a kind of input where tokenizers differ or break, with a predicate `belongs(x)`
and a handful of inputs (real text from data/ where the corpora have it).

A vector records, for one input: N(input), the ids of `encode_ordinary`, each token's span in the
input (`offsets`) and the decoded text; for a control-token look-alike also the ids and spans with
every special allowed and what plain `encode` says; for malformed input the error (its type and
its message up to the first comma, which names what went wrong and where but no id). `write` puts
them in a JSON-lines file whose header holds the tokenizer's digest; `check` recomputes them and
returns those that differ, field by field. A merge dropped, another pattern, a new special token
or another normalization form each fail a different set of categories.

`with_golden_vectors` puts the file's sha256 in the tokenizer's metadata, which `save` writes into
the manifest; metadata is not part of the digest, so the file (which records the digest) and the
manifest (which records the file) do not chase each other. From a shell:
`python -m tutorial_pipeline.golden write|check` (the production path's).
"""

from __future__ import annotations

import functools
import json
import os
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from tutorial_lib.data import file_sha256, write_atomically
from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_str, check_type
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.contract.normalize import normalize
from tutorial_lib.contract.offsets import TokenOffsets, encode_with_offsets

SCHEMA_VERSION = 1
MANIFEST_KEY = "golden_vectors_sha256"


@dataclass(frozen=True)
class Category:
    """A kind of input a tokenizer must get right: `belongs(x)` says whether x exercises it."""

    name: str
    description: str
    belongs: Callable[[str | bytes], bool]
    inputs: tuple[str | bytes, ...]
    allowed_special: bool = False  # also encode with every special token allowed


def _text_matching(pattern: str) -> Callable[[str | bytes], bool]:
    """A predicate: the input is a str in which `pattern` (a `regex` pattern) matches."""
    compiled = regex.compile(pattern)
    return lambda x: isinstance(x, str) and compiled.search(x) is not None


def _malformed(x: str | bytes) -> bool:
    """A str with no UTF-8 form (a lone surrogate), or bytes that are not UTF-8."""
    try:
        x.encode("utf-8") if isinstance(x, str) else x.decode("utf-8")
    except UnicodeError:
        return True
    return False


CATEGORIES: tuple[Category, ...] = (
    Category("combining_marks", "a character followed by combining marks (unicodedata.combining "
             "!= 0), which NFC may compose with it",
             lambda x: isinstance(x, str) and any(map(unicodedata.combining, x)),
             ("cafe\u0301 and caf\u00e9", "unmarked o\u0308 vs \u00f6",
              "उन्होंने कहा",  # Hindi (FLORES): the virama U+094D is a combining mark
              "ไม่เป็นโรคเบาหวาน")),  # Thai (FLORES): its vowel and tone marks combine
    Category("compatibility", "compatibility characters, which NFKC replaces (full-width forms, "
             "ligatures, circled digits, the ideographic space, compatibility ideographs)",
             lambda x: isinstance(x, str) and unicodedata.normalize("NFKC", x) != x,
             ("我在年青时候也曾经做过许多梦，后来大半忘却了，",  # Lu Xun: full-width commas
              "《Sesame\u3000and Lilies》",  # Lu Xun: an ideographic space inside English
              "ＡＢＣ１２３ ﬁnance ①② ㈱ \uf900")),
    Category("repeated_whitespace", "two or more whitespace characters in a row",
             _text_matching(r"\s\s"),
             ("two  spaces", "end.\n\nNext paragraph", "tab\t\tseparated", "trailing   ",
              'welcome!"  He waved')),  # TinyStories: two spaces after a sentence
    Category("right_to_left", "a right-to-left character (bidirectional class R or AL)",
             lambda x: isinstance(x, str) and any(unicodedata.bidirectional(c) in ("R", "AL")
                                                  for c in x),
             ("فئران تبلغ من العمر 4 أشهر",  # Arabic (FLORES)
              "שלום עולם",  # Hebrew (no bundled Hebrew corpus)
              "Dr. Ehud Ur (إيهود أور)")),
    Category("emoji_joiners", "emoji sequences joined by ZERO WIDTH JOINER (U+200D)",
             lambda x: isinstance(x, str) and "\u200d" in x,
             ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f3f3\ufe0f\u200d\U0001f308",
              "\U0001f469\U0001f3fd\u200d\U0001f4bb 写代码")),
    Category("no_space_scripts", "a run of Han, Thai, hiragana or katakana with no space in it",
             _text_matching(r"[\p{Han}\p{Thai}\p{Hiragana}\p{Katakana}]{4,}"),
             ("但自己也并不以为可惜。",  # Lu Xun
              "你用跑的。",  # Tatoeba
              "ขณะนี้เรามีหนูอายุ 4 เดือน",  # Thai (FLORES)
              "我々が飼っている生後4か月のマウス")),  # Japanese (FLORES)
    Category("code_indentation", "a line that starts with four or more spaces or a tab",
             _text_matching(r"(?m)^(?: {4}|\t)"),
             ("    for ids, freq in zip(words, freqs):\n        for pair in zip(ids, ids[1:]):\n"
              "            counts[pair] += freq\n    return counts\n",  # data/code_sample.txt
              "test:\n\tpython -m pytest -q\n", "if x:\n    pass\n")),
    Category("digits", "a run of two or more digits (any script's decimal digits)",
             _text_matching(r"\d{2,}"),
             ("1234567890", "3.14159 and 2,718,281", "现在是7点45分。", "一英里大约是1600米。",
              "2010这个数字里有两个零。",  # the three Chinese ones: Tatoeba
              "２０１６年", "٢٠١٦")),
    Category("urls", "a URL", _text_matching(r"https?://\S+|www\.\S+"),
             ("https://zh.wikipedia.org/wiki/鲁迅", "http://example.com/a_b-c?q=1&lang=zh#top",
              "see www.example.org/index.html.")),
    Category("control_tokens", "ordinary text that spells a control token (this tokenizer's or "
             "another's) or a look-alike of one",
             _text_matching(r"[<＜][|｜][^|｜]+[|｜][>＞]|</?s>|\[(?:CLS|SEP|PAD|MASK|UNK)\]"),
             ("<|endoftext|>", "one.<|endoftext|>two.", "<|pad|>", "＜｜endoftext｜＞",
              "<｜end▁of▁sentence｜>", "<|im_start|>user\nhi<|im_end|>", "<s>[INST] hi [/INST]</s>",
              "[CLS] 你好 [SEP]"),
             allowed_special=True),
    Category("malformed", "a str with a lone surrogate (no UTF-8 form: encode refuses it) or "
             "bytes that are not UTF-8 (decode applies its error policy)",
             _malformed,
             ("\ud800", "abc\udc80def", "中\udfff文",
              b"\xff", b"\xe4\xb8", b"\xe4\xb8\xad\xe6", b"abc\x80def", b"\xc0\xaf",
              b"\xed\xa0\x80")),
)


def vectors(tokenizer: Tokenizer, categories: Iterable[Category] = CATEGORIES) -> list[dict]:
    """Every input of every category as a vector (a dict, as it goes into the file)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    return [vector(tokenizer, c.name, x, c.allowed_special) for c in categories for x in c.inputs]


def vector(tokenizer: Tokenizer, category: str, x: str | bytes, allowed_special: bool = False
           ) -> dict:
    """One golden vector: what `tokenizer` does with `x`; bytes go to the decode side."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    check_str(category, "category", non_empty=True)
    check_type(x, "x", (str, bytes), "a str (to encode) or bytes (to decode)")
    if isinstance(x, bytes):
        return _decode_vector(tokenizer, category, x)
    out: dict[str, Any] = {"category": category, "input": x}
    try:
        ids = tokenizer.encode_ordinary(x)
    except ValueError as e:
        return out | {"error": _error(e)}
    out |= {"normalized": normalize(x, tokenizer.normalization), "ids": ids,
            "offsets": _spans(_ordinary_offsets(tokenizer, x)), "decoded": tokenizer.decode(ids)}
    if allowed_special:
        special = encode_with_offsets(tokenizer, x, allowed_special="all")
        out |= {"ids_allowed_special": special.ids, "offsets_allowed_special": _spans(special),
                "encode_error": _error_of(tokenizer.encode, x)}
    return out


def _ordinary_offsets(tokenizer: Tokenizer, text: str) -> TokenOffsets:
    """`encode_with_offsets` as `encode_ordinary` would give it: a special token's text stays text
    (encoded by the same tokenizer without special tokens, built once per tokenizer)."""
    if not any(special in text for special in tokenizer.special_tokens):
        return encode_with_offsets(tokenizer, text)
    return encode_with_offsets(_without_specials(tokenizer), text)


@functools.lru_cache(maxsize=2)
def _without_specials(tokenizer: Tokenizer) -> Tokenizer:
    return tokenizer.replace(special_tokens=())


def _spans(result: TokenOffsets) -> list[list[int]]:
    return [list(span) for span in result.offsets]


def _decode_vector(tokenizer: Tokenizer, category: str, x: bytes) -> dict:
    """The decode side: the ids of the byte tokens of `x`, decoded by each error policy."""
    byte_id = {token: i for i, token in tokenizer.vocab.items() if len(token) == 1}
    ids = [byte_id[bytes([b])] for b in x]
    return {"category": category, "input_hex": x.hex(), "ids": ids,
            "decoded": tokenizer.decode(ids, errors="replace"),
            "decoded_backslashreplace": tokenizer.decode(ids, errors="backslashreplace"),
            "error": _error_of(tokenizer.decode, ids, errors="strict")}


def _error(e: Exception) -> dict:
    """An error as a vector records it: its type, and its message up to the first comma (what
    went wrong and where; the rest names ids or suggests a fix, which may be reworded)."""
    return {"type": type(e).__name__, "message": str(e).split(",")[0]}


def _error_of(function: Callable, *args: Any, **kwargs: Any) -> dict | None:
    try:
        function(*args, **kwargs)
    except (ValueError, TypeError) as e:
        return _error(e)
    return None


def _input(v: dict) -> str | bytes:
    return bytes.fromhex(v["input_hex"]) if "input_hex" in v else v["input"]


def header(tokenizer: Tokenizer, categories: Iterable[Category] = CATEGORIES) -> dict:
    """The file's first line: schema, the tokenizer's digest and normalization, the categories."""
    return {"golden_vectors": SCHEMA_VERSION, "tokenizer_sha256": manifest.digest(tokenizer),
            "normalization": tokenizer.normalization,
            "categories": {c.name: c.description for c in categories}}


def write(tokenizer: Tokenizer, path: str | os.PathLike,
          categories: Iterable[Category] = CATEGORIES) -> Path:
    """Write the header and one vector per line, atomically; the same tokenizer gives the same
    bytes. Text stays readable (ensure_ascii=False); a lone surrogate, which has no UTF-8 form,
    is written as its JSON escape \\udXXX."""
    path = check_path(path, "path")
    categories = tuple(categories)
    lines = [header(tokenizer, categories), *vectors(tokenizer, categories)]
    text = "".join(_dumps(line) + "\n" for line in lines)
    write_atomically(path, text)
    return path


def _dumps(value: Any) -> str:
    # backslashreplace turns exactly the unencodable characters (surrogates) into \udXXX
    text = json.dumps(value, ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def read(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """(header, vectors) of a file written by `write`; ValueError for anything else."""
    path = check_regular_file(path, "path")
    try:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is not a golden vectors file (JSON lines): {e}") from None
    if not lines or not isinstance(lines[0], dict) or "golden_vectors" not in lines[0]:
        raise ValueError(f"{path} has no golden vectors header, so write() did not make it")
    if lines[0]["golden_vectors"] != SCHEMA_VERSION:
        raise ValueError(f"{path} has golden vectors schema {lines[0]['golden_vectors']!r}; this "
                         f"code reads version {SCHEMA_VERSION}")
    bad = [n for n, v in enumerate(lines[1:], 2) if not isinstance(v, dict) or "category" not in v
           or ("input" in v) == ("input_hex" in v)]
    if bad:
        raise ValueError(f"{path} line {bad[0]} is not a golden vector")
    return lines[0], lines[1:]


@dataclass(frozen=True)
class Failure:
    """A vector the tokenizer no longer gives: each differing field -> (expected, got)."""

    category: str
    input: str | bytes
    differs: dict[str, tuple[Any, Any]]


def check(tokenizer: Tokenizer, path: str | os.PathLike) -> list[Failure]:
    """The vectors of the file at `path` that `tokenizer` does not reproduce, in file order."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    failures = []
    for expected in read(path)[1]:
        x = _input(expected)
        got = vector(tokenizer, expected["category"], x, "ids_allowed_special" in expected)
        differs = {key: (expected.get(key), got.get(key)) for key in {**expected, **got}
                   if expected.get(key) != got.get(key)}
        if differs:
            failures.append(Failure(expected["category"], x, dict(sorted(differs.items()))))
    return failures


def failing_categories(failures: Iterable[Failure]) -> dict[str, list[str]]:
    """category -> the fields that differ in any of its failing vectors, both sorted."""
    fields: dict[str, set[str]] = {}
    for f in failures:
        fields.setdefault(f.category, set()).update(f.differs)
    return {c: sorted(fields[c]) for c in sorted(fields)}


def with_golden_vectors(tokenizer: Tokenizer, path: str | os.PathLike) -> Tokenizer:
    """The tokenizer with the file's sha256 in its metadata (so `manifest.save` writes it
    into the manifest), after checking that the file was written for it and that it passes."""
    recorded = read(path)[0]["tokenizer_sha256"]
    if recorded != manifest.digest(tokenizer):
        raise ValueError(f"{path} was written for tokenizer {recorded}, not this one "
                         f"({manifest.digest(tokenizer)})")
    failures = check(tokenizer, path)
    if failures:
        raise ValueError(f"{len(failures)} golden vectors of {path} fail, the first in category "
                         f"{failures[0].category!r}")
    return tokenizer.replace(metadata=tokenizer.metadata | {MANIFEST_KEY: file_sha256(path)})
