"""Chapter 03 exercises: coverage, bytes per token and cut characters; the oracles are
`characters.chars_for_coverage`, `measure.compression` and `measure.cut_characters`."""

from __future__ import annotations

import random
from typing import Callable

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib.text import characters, measure

_HAN = "的一是不了人我在有他这中大来上个们到说和时也出就那要下以会可你对生能而子"


def _zipf_text(rng: random.Random, length: int) -> str:
    """Han characters drawn with Zipf-like weights (1/rank), plus a little punctuation: a tiny
    "novel"."""
    weights = [1 / rank for rank in range(1, len(_HAN) + 1)]
    chars = rng.choices(_HAN, weights, k=length)
    return "".join(ch + ("，" if rng.random() < 0.1 else "") for ch in chars)


def _coverage_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 3)
    cases = [("人工智能人工智障人工", 0.5), ("人工智能人工智障人工", 1.0), ("aaab", 0.75),
             ("aaab", 0.76), ("我", 0.3)]
    cases += [(_zipf_text(rng, rng.randint(20, 400)), rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 1.0]))
              for _ in range(20)]
    # spaces and line breaks are characters too: a count that skips them gets these wrong
    cases += [("人工 智能\n人工 智障\n人工\n", 0.5), ("好 好 好\n\n\n\n\n", 0.6)]
    for _ in range(4):  # lines of words
        lines = [" ".join(_zipf_text(rng, rng.randint(2, 8)) for _ in range(rng.randint(1, 4)))
                 for _ in range(rng.randint(2, 6))]
        cases.append(("\n".join(lines), rng.choice([0.5, 0.9, 1.0])))
    return [Case((text, fraction), characters.chars_for_coverage(text, fraction))
            for text, fraction in cases]


class _Encoder:
    """A toy encode function with a readable repr, so a failing case shows its name, not a memory
    address."""

    def __init__(self, name: str, fn: Callable[[str], list]) -> None:
        self.name, self.fn = name, fn

    def __call__(self, text: str) -> list:
        return self.fn(text)

    def __repr__(self) -> str:
        return self.name


def _per_byte(s: str) -> list:
    return list(s.encode("utf-8"))


def _per_two_chars(s: str) -> list:
    return [s[i:i + 2] for i in range(0, len(s), 2)]


def _han_or_byte(s: str) -> list:
    return [t for ch in s for t in ([ch] if characters.is_han(ch) else list(ch.encode("utf-8")))]


# module-level functions, so that grading can send the cases to the runner process (pickle)
_ENCODERS = [
    _Encoder("每个字节一个 token", _per_byte),
    _Encoder("每个字符一个 token", list),
    _Encoder("每两个字符一个 token", _per_two_chars),
    _Encoder("每个汉字一个 token，其余每个字节一个", _han_or_byte),
]


def _bytes_per_token_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 3)
    line_sets = [["你好，世界！", "hello"], ["人工智能"], ["abc", "中文比英文多字节", "é"]]
    line_sets += [[_zipf_text(rng, rng.randint(1, 30)) + rng.choice(["", " ok", "123"])
                   for _ in range(rng.randint(1, 5))] for _ in range(6)]
    return [Case((lines, enc), measure.compression(enc, lines).bytes_per_token)
            for lines in line_sets for enc in _ENCODERS]


def _cut_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 3)
    token_lists = [[b"\xe4\xb8", b"\x96", "界".encode()], ["你".encode(), "好".encode()],
                   [b"\xe9", b"\xb2", b"\x81"], [b"\xe4\xb8", b"\x96\xe7\x95\x8c"], [b"abc", b" d"],
                   []]
    for _ in range(20):
        data = (_zipf_text(rng, rng.randint(1, 12)) + rng.choice(["", "ab", "é"])).encode("utf-8")
        cuts = []
        if len(data) > 1:  # token boundaries strictly inside the bytes
            cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, min(6, len(data) - 1))))
        token_lists.append([data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])])
    return [Case((tokens,), measure.cut_characters(tokens)[0]) for tokens in token_lists]


register(Exercise(
    key="03.chars_for_coverage",
    points=2,
    title="练习 1：多少个不同的字覆盖文本的给定比例",
    concept="比例是相对“文本里的字数（含重复）”，不是相对“不同的字有多少种”："
            "最常用的几个字就能覆盖文本的一大块。文本里的每个字符都算，空格和换行也算。",
    recipe="先数每个字出现的次数（Counter），按次数从多到少排序，再一个个累加，"
           "直到累计次数 / 总字数 >= fraction，返回用到的字数。",
    make_cases=_coverage_cases,
    library_twins=("tutorial_lib.text.characters.chars_for_coverage",),
))

register(Exercise(
    key="03.bytes_per_token",
    points=1,
    title="练习 2：每个 token 平均多少字节",
    concept="字节数是 UTF-8 字节，不是字符数（一个汉字 3 个字节）；"
            "整体的比值是“总字节数 / 总 token 数”，不是每行比值的平均。",
    recipe="total_bytes = 各行 len(line.encode('utf-8')) 之和，"
           "total_tokens = 各行 len(encode(line)) 之和，返回 total_bytes / total_tokens。",
    make_cases=_bytes_per_token_cases,
    library_twins=("tutorial_lib.text.measure.compression",),
))

register(Exercise(
    key="03.count_cut_characters",
    points=2,
    title="练习 3：有多少个字被切开了",
    concept="一个字被切开，是说有 token 边界落在它的字节中间；一个字被切成三段也只算一个。"
            "“单独解不成 UTF-8 的 token 有几个”不是答案。",
    recipe="记下每个 token 结束的字节位置（长度的累加）；"
           "把所有 token 拼起来解码，逐字算出它占的字节区间 [start, end)，"
           "区间内部（不含两端）有 token 边界的字就被切开了。",
    make_cases=_cut_cases,
    library_twins=("tutorial_lib.text.measure.cut_characters",),
))
