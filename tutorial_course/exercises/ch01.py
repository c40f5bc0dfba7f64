"""Chapter 01 exercises: D2L-style cleaning, a frequency-ordered vocabulary, the OOV rate; the
oracle is `d2l`."""

from __future__ import annotations

import random

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib.text import d2l


def _clean_cases(seed: int | None = None) -> list[Case]:
    lines = ["The Time Machine, by H. G. Wells [1898]", "  don't  stop--NOW!  ", "naïve café",
             "1898", "", "twinkled, and his usually pale face was flushed and animated. The",
             "Ab3cD\te_f", "ÄÖÜ ß Straße"]
    rng = draw(seed, 1)
    lines += ["".join(rng.choice("aZ  ,.'-9é\t") for _ in range(rng.randint(0, 15)))
              for _ in range(12)]
    return [Case((line,), d2l.clean_line(line)) for line in lines]


def _random_tokens(rng: random.Random) -> list[str]:
    """A short token list with repeats and ties; words chosen so alphabetical order differs from
    first use."""
    words = rng.sample(["the", "cat", "sat", "mat", "a", "on", "dog", "zebra"], rng.randint(2, 7))
    return [rng.choice(words) for _ in range(rng.randint(1, 20))]


def _vocab_cases(seed: int | None = None) -> list[Case]:
    cases = [(["b", "a", "c", "a", "c", "d"], 0), (["x", "y", "x", "z", "x", "y"], 2),
             (["zebra", "apple"], 0), ([], 0), (["a", "a"], 3)]
    rng = draw(seed, 1)
    cases += [(_random_tokens(rng), rng.randint(0, 3)) for _ in range(25)]
    return [Case((tokens, min_freq), d2l.Vocab(tokens, min_freq).idx_to_token)
            for tokens, min_freq in cases]


class _Vocab(d2l.Vocab):
    """A Vocab whose repr is the call that builds it, so a learner can rebuild a failing case in a
    cell."""

    def __init__(self, tokens: list[str]) -> None:
        super().__init__(tokens)
        self.tokens = tokens

    def __repr__(self) -> str:
        return f"Vocab({self.tokens!r})"


def _oov_cases(seed: int | None = None) -> list[Case]:
    cases = [(["the", "cat"], ["the", "dog", "dog", "cat"]), (["a"], ["a", "a", "a"]),
             (["a"], ["b"]), (["a", "b"], ["a", "c", "c", "c", "b", "d"])]
    rng = draw(seed, 1)
    cases += [(_random_tokens(rng), _random_tokens(rng)) for _ in range(25)]
    return [Case((_Vocab(known), tokens), d2l.oov_rate(_Vocab(known), tokens))
            for known, tokens in cases]


register(Exercise(
    key="01.clean_line",
    points=1,
    title="练习 1：D2L 式清洗一行文本",
    concept="只留下 ASCII 字母：每一段连续的非字母（标点、数字、空白、é 这样的非 ASCII 字母）"
            "变成一个空格，首尾不留空格，全部小写。",
    recipe="re.sub(r'[^A-Za-z]+', ' ', line) 替换，再 strip() 去掉首尾空格，最后 lower()。"
           "注意那个 +：没有它，'--' 会变成两个空格。",
    make_cases=_clean_cases,
    library_twins=("tutorial_lib.text.d2l.clean_line",),
))

register(Exercise(
    key="01.build_vocab",
    points=2,
    title="练习 2：按词频建词表（idx_to_token）",
    concept="第 0 个是 '<unk>'，然后是出现次数 >= min_freq 的 token，按次数从多到少；"
            "次数相同的，按在语料里第一次出现的先后排，不按字母顺序。",
    recipe="Counter(tokens) 记得每个 token 第一次出现的顺序；"
           "sorted(counts.items(), key=lambda kv: kv[1], reverse=True) 是稳定排序，"
           "并列的保持这个顺序（Counter.most_common() 也一样）。"
           "留下次数 >= min_freq 的，前面加上 '<unk>'，返回列表。",
    make_cases=_vocab_cases,
    library_twins=("tutorial_lib.text.d2l.Vocab.__init__",),
))

register(Exercise(
    key="01.oov_rate",
    points=1,
    title="练习 3：未登录词率（OOV rate）",
    concept="数的是 token（重复出现要重复计数），不是去重后的词种类。",
    recipe="分子是不在 vocab 里的 token 个数（`t not in vocab`，或 vocab[t] == vocab.unk），"
           "分母是 token 总数 len(tokens)。",
    make_cases=_oov_cases,
    library_twins=("tutorial_lib.text.d2l.oov_rate",),
))
