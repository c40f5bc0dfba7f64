"""Classroom exercises: a notebook declares nothing but `check("key", my_function)`.

The checker runs the learner's function on a list of cases and answers in Chinese: 通过 when every case
passes, 未完成 while the function is still the shipped stub, and otherwise the first failing case with a
hint. It never lets a traceback escape, so a notebook with unsolved exercises still runs clean.
Reference solutions live in `solutions/` at the top of the repository, outside the student notebooks.
"""

from __future__ import annotations

import math
import random
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from tutorial_lib.tokenization import bpe_toy, d2l, metrics


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: fn(*args) should return `expected`."""

    args: tuple
    expected: Any


@dataclass(frozen=True)
class Exercise:
    key: str  # "00.utf8_length": chapter number, then the function the learner writes
    title: str
    hint: str
    make_cases: Callable[[], list[Case]]  # a function, so random cases are built with a fixed seed on demand
    same: Callable[[Any, Any], bool] = field(default=lambda got, expected: got == expected)

    @property
    def function_name(self) -> str:
        return self.key.split(".", 1)[1]


@dataclass(frozen=True)
class Feedback:
    """What `check` returns; its repr is the Chinese message the notebook shows."""

    passed: bool
    message: str

    def __repr__(self) -> str:
        return self.message


REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    if exercise.key in REGISTRY:
        raise ValueError(f"exercise key {exercise.key!r} is registered twice")
    REGISTRY[exercise.key] = exercise
    return exercise


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check(key: str, fn: Callable) -> Feedback:
    """Run `fn` on every case of exercise `key` and explain the first problem in Chinese."""
    if key not in REGISTRY:
        raise ValueError(f"key must be one of {sorted(REGISTRY)}, got {key!r}")
    if not callable(fn):
        raise TypeError(f"fn must be the function you wrote, got {type(fn).__name__}")
    exercise = REGISTRY[key]
    cases = exercise.make_cases()
    for i, case in enumerate(cases, start=1):
        try:
            got = fn(*case.args)
        except NotImplementedError:
            return Feedback(False, f"未完成：{exercise.title} —— 把函数体里的 raise NotImplementedError 换成你的实现。")
        except Exception as err:  # the learner's bug: show it kindly instead of a traceback
            where = traceback.extract_tb(err.__traceback__)[-1]
            return Feedback(False, f"未完成：{exercise.title} —— 第 {i}/{len(cases)} 个用例运行出错："
                                   f"{type(err).__name__}: {err}（第 {where.lineno} 行）\n"
                                   f"输入：{_short(case.args)}\n提示：{exercise.hint}")
        if got is None and case.expected is not None:
            return Feedback(False, f"未完成：{exercise.title} —— 函数返回了 None，是不是忘了 return？")
        if not exercise.same(got, case.expected):
            return Feedback(False, f"未完成：{exercise.title} —— 第 {i}/{len(cases)} 个用例不对。\n"
                                   f"输入：{_short(case.args)}\n期望：{_short(case.expected)}\n"
                                   f"得到：{_short(got)}\n提示：{exercise.hint}")
    return Feedback(True, f"通过 ✓ {exercise.title}（{len(cases)} 个用例全部正确）")


# --- 00 导读 -------------------------------------------------------------------------------------------

register(Exercise(
    key="00.utf8_length",
    title="练习 0：一段文字占多少字节",
    hint="len(text) 数的是字符；模型读的是 UTF-8 字节，先 text.encode('utf-8') 再数。",
    make_cases=lambda: [Case((text,), len(text.encode("utf-8")))
                        for text in ["hello", "", "你好，世界", "naïve café", "🙂👍", "GPT-4 的词表有 100277 个 token"]],
))

# --- 01 字符、词与子词 ------------------------------------------------------------------------------------


def _ch01_clean_cases() -> list[Case]:
    lines = ["The Time Machine, by H. G. Wells [1898]", "  don't  stop--NOW!  ", "naïve café", "1898", "",
             "twinkled, and his usually pale face was flushed and animated. The", "Ab3cD\te_f", "ÄÖÜ ß Straße"]
    rng = random.Random(1)
    lines += ["".join(rng.choice("aZ  ,.'-9é\t") for _ in range(rng.randint(0, 15))) for _ in range(12)]
    return [Case((line,), d2l.clean_line(line)) for line in lines]


def _ch01_random_tokens(rng: random.Random) -> list[str]:
    """A short token list with repeats and ties; words chosen so alphabetical order differs from first use."""
    words = rng.sample(["the", "cat", "sat", "mat", "a", "on", "dog", "zebra"], rng.randint(2, 7))
    return [rng.choice(words) for _ in range(rng.randint(1, 20))]


def _ch01_vocab_cases() -> list[Case]:
    cases = [(["b", "a", "c", "a", "c", "d"], 0), (["x", "y", "x", "z", "x", "y"], 2), (["zebra", "apple"], 0),
             ([], 0), (["a", "a"], 3)]
    rng = random.Random(1)
    cases += [(_ch01_random_tokens(rng), rng.randint(0, 3)) for _ in range(25)]
    return [Case((tokens, min_freq), d2l.Vocab(tokens, min_freq).idx_to_token) for tokens, min_freq in cases]


def _ch01_oov_cases() -> list[Case]:
    cases = [(["the", "cat"], ["the", "dog", "dog", "cat"]), (["a"], ["a", "a", "a"]), (["a"], ["b"]),
             (["a", "b"], ["a", "c", "c", "c", "b", "d"])]
    rng = random.Random(1)
    cases += [(_ch01_random_tokens(rng), _ch01_random_tokens(rng)) for _ in range(25)]
    out = []
    for known, tokens in cases:
        vocab = d2l.Vocab(known)
        out.append(Case((vocab, tokens), d2l.oov_rate(vocab, tokens)))
    return out


register(Exercise(
    key="01.clean_line",
    title="练习 1：D2L 式清洗一行文本",
    hint="用正则 [^A-Za-z]+ 把每一段连续的非字母（标点、数字、空白、é 这样的非 ASCII 字母）替换成一个空格，"
         "再 strip() 去掉首尾空格，最后 lower()。注意那个 +：没有它，'--' 会变成两个空格。",
    make_cases=_ch01_clean_cases,
))

register(Exercise(
    key="01.build_vocab",
    title="练习 2：按词频建词表（idx_to_token）",
    hint="返回列表：第 0 个是 '<unk>'，然后是出现次数 >= min_freq 的 token，按次数从多到少；"
         "次数相同的按在语料里第一次出现的先后排（Counter 记得插入顺序，sorted 是稳定排序；"
         "Counter.most_common() 也是这样），不要按字母顺序。",
    make_cases=_ch01_vocab_cases,
))

register(Exercise(
    key="01.oov_rate",
    title="练习 3：未登录词率（OOV rate）",
    hint="数的是 token（重复出现要重复计数），不是去重后的词种类：分子是不在 vocab 里的 token 个数"
         "（`t not in vocab` 或 vocab[t] == vocab.unk），分母是 token 总数。",
    make_cases=_ch01_oov_cases,
    same=lambda got, expected: isinstance(got, (int, float)) and abs(got - expected) < 1e-12,
))

# --- 02 BPE 逐步合并 -------------------------------------------------------------------------------------


def _ch02_random_corpus(rng: random.Random) -> dict[tuple[str, ...], int]:
    """A small corpus in training form: words over a tiny alphabet (so runs like "a a a" occur), plus </w>."""
    words = {"".join(rng.choice("aab") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(2, 6))}
    return {tuple(word) + (bpe_toy.EOW,): rng.randint(1, 9) for word in sorted(words)}


def _ch02_count_cases() -> list[Case]:
    rng = random.Random(2)
    corpora = [{("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "s", "t", "</w>"): 2},
               {("a", "a", "a", "</w>"): 1}]
    corpora += [_ch02_random_corpus(rng) for _ in range(20)]
    return [Case((corpus,), bpe_toy.count_pairs(corpus)) for corpus in corpora]


def _ch02_merge_cases() -> list[Case]:
    rng = random.Random(2)
    cases = [(("n", "e", "w", "e", "r", "</w>"), ("e", "r")), (("a", "a", "a", "</w>"), ("a", "a")),
             (("ab", "c", "</w>"), ("b", "c"))]
    for _ in range(30):
        symbols = tuple(rng.choice(["a", "a", "b", "ab"]) for _ in range(rng.randint(1, 7))) + ("</w>",)
        cases.append((symbols, (rng.choice("ab"), rng.choice(["a", "b", "</w>"]))))
    return [Case((symbols, pair), bpe_toy.merge_pair(symbols, pair)) for symbols, pair in cases]


def _ch02_encode_cases() -> list[Case]:
    rng = random.Random(2)
    cases = [("lowing", [("l", "o"), ("lo", "w"), ("w", "i")]), ("lowing", [("w", "i"), ("l", "o"), ("lo", "w")]),
             ("abc", [("b", "c"), ("a", "b")])]
    for _ in range(20):
        merges = bpe_toy.train({"".join(rng.choice("ab") for _ in range(rng.randint(1, 6))): rng.randint(1, 9)
                                for _ in range(4)}, 6).merges
        rng.shuffle(merges)
        cases.append(("".join(rng.choice("ab") for _ in range(rng.randint(1, 8))), merges))
    return [Case((word, merges), bpe_toy.encode_word(word, merges)) for word, merges in cases]


register(Exercise(
    key="02.count_pairs",
    title="练习 1：统计相邻符号对（按词频加权）",
    hint="对每个词的每一对相邻符号 (symbols[i], symbols[i+1]) 加上这个词的词频，而不是加 1；"
         "同一个词里出现两次的符号对（比如 a a a 里的 a + a）要算两次。",
    make_cases=_ch02_count_cases,
    same=lambda got, expected: isinstance(got, dict) and dict(got) == expected,
))

register(Exercise(
    key="02.merge_pair",
    title="练习 2：合并一个符号对",
    hint="从左往右扫：在位置 i 命中这一对就输出合并后的符号并跳过两格（i += 2），否则照抄一格；"
         "a a a 合并 a + a 得到 aa a，不是 aa aa。别把符号拼成字符串再 replace：ab c 里并没有 b + c 这一对。",
    make_cases=_ch02_merge_cases,
    same=lambda got, expected: isinstance(got, (list, tuple)) and tuple(got) == expected,
))

register(Exercise(
    key="02.encode_word",
    title="练习 3：按排名编码一个词",
    hint="先把词拆成字符再加上 '</w>'；每一轮在当前相邻对里找排名最小（在 merges 里位置最靠前）的那一对，"
         "合并它的所有出现，直到没有相邻对在 merges 里。看的是排名，不是它在词里的位置。",
    make_cases=_ch02_encode_cases,
    same=lambda got, expected: isinstance(got, (list, tuple)) and list(got) == expected,
))


# --- 03 中文语料 -----------------------------------------------------------------------------------------


_CH03_HAN = "的一是不了人我在有他这中大来上个们到说和时也出就那要下以会可你对生能而子"


def _ch03_zipf_text(rng: random.Random, length: int) -> str:
    """Han characters drawn with Zipf-like weights (1/rank), plus a little punctuation: a tiny "novel"."""
    weights = [1 / rank for rank in range(1, len(_CH03_HAN) + 1)]
    chars = rng.choices(_CH03_HAN, weights, k=length)
    return "".join(ch + ("，" if rng.random() < 0.1 else "") for ch in chars)


def _ch03_coverage_cases() -> list[Case]:
    rng = random.Random(3)
    cases = [("人工智能人工智障人工", 0.5), ("人工智能人工智障人工", 1.0), ("aaab", 0.75), ("aaab", 0.76), ("我", 0.3)]
    cases += [(_ch03_zipf_text(rng, rng.randint(20, 400)), rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 1.0]))
              for _ in range(20)]
    return [Case((text, fraction), metrics.chars_for_coverage(text, fraction)) for text, fraction in cases]


class _Encoder:
    """A toy encode function with a readable repr, so a failing case shows its name, not a memory address."""

    def __init__(self, name: str, fn: Callable[[str], list]) -> None:
        self.name, self.fn = name, fn

    def __call__(self, text: str) -> list:
        return self.fn(text)

    def __repr__(self) -> str:
        return self.name


_CH03_ENCODERS = [
    _Encoder("每个字节一个 token", lambda s: list(s.encode("utf-8"))),
    _Encoder("每个字符一个 token", list),
    _Encoder("每两个字符一个 token", lambda s: [s[i:i + 2] for i in range(0, len(s), 2)]),
    _Encoder("每个汉字一个 token，其余每个字节一个", lambda s: [t for ch in s for t in
                                                   ([ch] if metrics.is_han(ch) else list(ch.encode("utf-8")))]),
]


def _ch03_bytes_per_token_cases() -> list[Case]:
    rng = random.Random(3)
    line_sets = [["你好，世界！", "hello"], ["人工智能"], ["abc", "中文比英文多字节", "é"]]
    line_sets += [[_ch03_zipf_text(rng, rng.randint(1, 30)) + rng.choice(["", " ok", "123"])
                   for _ in range(rng.randint(1, 5))] for _ in range(6)]
    return [Case((lines, enc), metrics.compression(enc, lines).bytes_per_token)
            for lines in line_sets for enc in _CH03_ENCODERS]


def _ch03_cut_cases() -> list[Case]:
    rng = random.Random(3)
    token_lists = [[b"\xe4\xb8", b"\x96", "界".encode()], ["你".encode(), "好".encode()], [b"\xe9", b"\xb2", b"\x81"],
                   [b"\xe4\xb8", b"\x96\xe7\x95\x8c"], [b"abc", b" d"], []]
    for _ in range(20):
        data = (_ch03_zipf_text(rng, rng.randint(1, 12)) + rng.choice(["", "ab", "é"])).encode("utf-8")
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, min(6, len(data) - 1)))) if len(data) > 1 else []
        token_lists.append([data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])])
    return [Case((tokens,), metrics.cut_characters(tokens)[0]) for tokens in token_lists]


register(Exercise(
    key="03.chars_for_coverage",
    title="练习 1：多少个不同的字覆盖文本的给定比例",
    hint="先数每个字出现的次数，按次数从多到少排序，再一个个累加，直到累计次数 / 总字数 >= fraction，"
         "返回用到的字数。比例是相对“文本里的字数（含重复）”，不是相对“不同的字有多少种”。",
    make_cases=_ch03_coverage_cases,
))

register(Exercise(
    key="03.bytes_per_token",
    title="练习 2：每个 token 平均多少字节",
    hint="字节数是 len(line.encode('utf-8'))，不是 len(line)（那是字符数）；"
         "先把所有行的字节数和 token 数分别加总，再相除——不要先算每行的比值再取平均。",
    make_cases=_ch03_bytes_per_token_cases,
    same=lambda got, expected: isinstance(got, (int, float)) and math.isclose(got, expected, rel_tol=1e-9),
))

register(Exercise(
    key="03.count_cut_characters",
    title="练习 3：有多少个字被切开了",
    hint="记下每个 token 结束的字节位置；再把所有 token 拼起来解码，逐字算出它占的字节区间 [start, end)，"
         "区间内部（不含两端）有 token 边界的字就被切开了。一个字被切成三段也只算一个；"
         "“单独解不成 UTF-8 的 token 有几个”不是答案。",
    make_cases=_ch03_cut_cases,
))
