"""Chapter 04 exercises: held-out compression at every size of one run, vocabulary size from
merges, every smaller vocabulary cut from one run, embedding bytes with the vocabulary padded,
utilization of a vocabulary on a text; the oracles are `vocab_size.measure_sizes`, `bpe_toy.train`,
separate `trainer.train_tokenizer` runs, `embedding.embedding_bytes`, `measure.utilization`."""

from __future__ import annotations

import abc
import functools
import numbers
import random
from collections import Counter

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe import bpe_toy, embedding, vocab_size
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.text import measure


class ExactInt(metaclass=abc.ABCMeta):
    """An expected int that only an int matches: 1.0 is not a right answer where 1 is asked.

    The engine takes any number for a number, so a float of the right value would pass; an
    expected value of this type is not a Number, and the engine's type check
    (`issubclass(type(got), type(expected))`) asks `__subclasshook__`, which admits the integer
    types (numpy's too) and not bool. It shows, and is named, as the int it holds, so a float
    answer reads "类型不对：期望 int，你返回了 float".
    """

    def __init__(self, value: int) -> None:
        self.value = value

    @classmethod
    def __subclasshook__(cls, other: type) -> bool:
        if issubclass(other, numbers.Integral) and not issubclass(other, bool):
            return True
        return NotImplemented  # the usual rules: ExactInt itself, and nothing else

    def __eq__(self, other: object) -> bool:
        if type(other) is ExactInt:
            return other.value == self.value
        return isinstance(other, ExactInt) and int(other) == self.value  # an int, not a bool

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return repr(self.value)


ExactInt.__name__ = ExactInt.__qualname__ = "int"  # what the learner reads in a type message


def _vocab_size_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 4)
    cases = [({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10), ({"aa": 1}, 0), ({"aa": 1}, 5),
             ({"ab": 2, "ba": 1}, 100), ({"人工智能": 3, "人工": 4, "智能": 5, "人工智障": 2}, 4)]
    for _ in range(10):
        words = {"".join(rng.choice("abcde") for _ in range(rng.randint(1, 6))): rng.randint(1, 5)
                 for _ in range(5)}
        cases.append((words, rng.randint(0, 30)))
    return [Case((corpus, n), ExactInt(len(bpe_toy.train(corpus, n).vocab))) for corpus, n in cases]


def _bytes_cases(seed: int | None = None) -> list[Case]:
    # (V, d, tied, bytes per parameter, pad V to a multiple of): GPT-2 in nanoGPT (64), cl100k's
    # n_vocab and Llama-3 (already a multiple) under Megatron's 128, no padding, a tiny model
    cases = [(50257, 768, True, 4, 64), (100277, 4096, False, 2, 128),
             (128256, 4096, False, 2, 128), (32000, 4096, False, 2, 1), (7910, 512, True, 2, 64),
             (256000, 3584, True, 2, 128),
             (32768, 4096, True, 2, 64), (100, 8, False, 1, 1), (1, 1, True, 1, 128),
             (257, 16, False, 4, 64), (129, 2, True, 1, 128), (50304, 768, True, 4, 64)]
    if seed is not None:  # the public cases are all hand-written; hidden ones add random sizes
        rng = draw(seed, 4)
        cases += [(rng.randint(1, 300_000), rng.choice([8, 64, 768, 4096, 5120]),
                   rng.choice([True, False]), rng.choice([1, 2, 4]), rng.choice([1, 8, 64, 128]))
                  for _ in range(10)]
    return [Case(args, ExactInt(embedding.embedding_bytes(*args))) for args in cases]


def _slice(items: list[str], n: int, rng: random.Random | None) -> tuple[str, ...]:
    """The first n items (public cases), or n from an offset the rng chooses (hidden ones)."""
    start = 0 if rng is None else rng.randrange(max(1, len(items) - n))
    return tuple(items[start:start + n])


@functools.lru_cache(maxsize=None)
def _runs(seed: int | None = None) -> tuple[tuple[tuple[str, ...], tuple[str, ...], int], ...]:
    """(lines, special tokens, merges of the one long run) of each corpus the cases cut from."""
    rng = None if seed is None else draw(seed, 4)

    def lines(name: str, n: int) -> tuple[str, ...]:
        return _slice([line for line in data.load_text(name).splitlines() if line.strip()], n, rng)

    return ((("aaabdaaabac",), (), 4), (("ab ab ab cd",), ("<|endoftext|>",), 3),
            (lines("timemachine", 600), (), 300), (lines("luxun", 200), (), 300),
            (_slice(data.tinystories_documents(), 150, rng), ("<|endoftext|>",), 300))


@functools.lru_cache(maxsize=None)
def _trained(lines: tuple[str, ...], specials: tuple[str, ...], merges: int) -> Tokenizer:
    size = 256 + len(specials) + merges
    return train_tokenizer(list(lines), size, special_tokens=specials, pattern="gpt4")


def _shown_first(vocab: dict[int, bytes]) -> dict[int, bytes]:
    """The vocab with the special and merged tokens before the 256 bytes, in id order: a failing
    case's message shows the first ten entries, and those are where cuts differ."""
    return dict(sorted(vocab.items(), key=lambda item: (len(item[1]) == 1, item[0])))


def _first_merges_cases(seed: int | None = None) -> list[Case]:
    """Each corpus trained once (the input) and again, separately, for each k (the expected
    vocab): the prefix property itself, on real text (other slices of it for hidden cases, and
    one more k)."""
    cases, rng = [], draw(seed, 4)
    for lines, specials, most in _runs(seed):
        long_run = _trained(lines, specials, most)
        ks = {0, 1, 2, most // 7, most // 2, len(long_run.merges)}
        for k in sorted(ks if seed is None else ks | {rng.randint(0, len(long_run.merges))}):
            separate = _trained(lines, specials, k)
            cases.append(Case((_shown_first(long_run.vocab), list(long_run.merges), k),
                              _shown_first(separate.vocab)))
    return cases


# (training lines, special tokens, merges asked for, held-out texts, sizes): small runs to follow by
# hand; one has texts of very different lengths, one sizes out of order, two a special token at 256
_HAND_CURVES = (
    (("aaabdaaabac",), (), 4, ("aaab", "abac"), (256, 257, 258, 259, 260)),
    (("aaabdaaabac",), (), 4, ("aaabdaaabac", "c"), (260, 256, 258)),
    (("ab ab ab cd",), ("<|endoftext|>",), 3, ("ab cd", "ab"), (257, 258, 259, 260)),
    (("人工智能，人工智能。",), ("<|endoftext|>",), 6, ("人工智能", "智能"), (257, 260, 263)),
)
# (corpus, special tokens, training items, held-out items): the public training slices are those of
# `_runs`, so one cached run serves both exercises; the held-out part is the items right after it
_REAL_CURVES = (("luxun", (), 200, 40), ("tinystories", ("<|endoftext|>",), 150, 20))


def _items(name: str) -> list[str]:
    if name == "tinystories":
        return data.tinystories_documents()
    return [line for line in data.load_text(name).splitlines() if line.strip()]


def _curve_case(run: Tokenizer, texts: list[str], sizes: list[int]) -> Case:
    points = vocab_size.measure_sizes(run, texts, sizes)
    return Case((_shown_first(run.vocab), list(run.merges), sizes, texts),
                [p.compression.bytes_per_token for p in points])


def _curve_cases(seed: int | None = None) -> list[Case]:
    """Each run trained once; every size is a prefix of it, measured by the library on text the
    run never saw (other slices, and other sizes, for hidden cases)."""
    rng = None if seed is None else draw(seed, 4)
    cases = [_curve_case(_trained(lines, specials, merges), list(texts), list(sizes))
             for lines, specials, merges, texts, sizes in _HAND_CURVES]
    for name, specials, n, m in _REAL_CURVES:
        items = _items(name)
        start = 0 if rng is None else rng.randrange(len(items) - n - m)
        run = _trained(tuple(items[start:start + n]), specials, 300)
        low, high = vocab_size.size_range(run)
        sizes = [low, low + 10, low + 50, low + 150, high]
        if rng is not None:
            sizes = rng.sample(range(low, high + 1), 5)
        cases.append(_curve_case(run, items[start + n:start + n + m], sizes))
    return cases


def _used_share(ids: list[int], size: int) -> float:
    return measure.utilization(Counter(ids), range(size)).used_share


def _utilization_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 4)
    cases = [([0, 1, 1, 1], 4), ([2, 2, 2], 3), ([5], 10), ([], 3), ([0, 1, 2], 3)]
    for _ in range(10):
        size = rng.randint(1, 30)
        cases.append(([rng.randrange(size) for _ in range(rng.randint(0, 40))], size))
    return [Case(args, _used_share(*args)) for args in cases]


register(Exercise(
    key="04.compression_curve",
    points=3,
    title="练习 1：一次训练，量出整条压缩率曲线",
    concept="更小的词表不用重新训练：大小为 size 的词表 = 256 个字节 + 特殊 token + 这次训练的前 k "
            "次合并，k = size − (len(vocab) − len(merges))，分词器只用 merges[:k]。每个大小都在全部"
            "留出文本上量：字节是 UTF-8 字节（一个汉字 3 个），比值是“总字节数 / 总 token 数”，"
            "不是每段比值的平均；每段单独编码，预切分和训练时一样用 pattern=\"gpt4\"。",
    recipe="base = len(vocab) − len(merges)；total = 各段 len(text.encode('utf-8')) 之和；"
           "对 sizes 里的每个 size：k = size − base，later = {a + b for a, b in merges[k:]}，"
           "small = Tokenizer({i: t for i, t in vocab.items() if t not in later}, merges[:k], "
           "pattern=\"gpt4\")，tokens = 各段 len(small.encode_ordinary(text)) 之和，"
           "把 total / tokens 依次放进返回的 list。",
    make_cases=_curve_cases,
    library_twins=("tutorial_lib.bpe.vocab_size.measure_sizes",
                   "tutorial_lib.bpe.vocab_size.at_size",
                   "tutorial_lib.bpe.vocab_size.first_merges",
                   "tutorial_lib.text.measure.compression"),
))

register(Exercise(
    key="04.vocab_size",
    points=1,
    title="练习 2：合并之后词表有多大",
    concept="字符级 BPE 的词表 = 语料里出现的不同字符 + 词尾标记 </w> + 真正学到的合并。"
            "合并次数只是上限：每个词都合成一个符号以后就没有可合并的相邻对了，训练会提前停下。",
    recipe="先数不同字符：len(set(''.join(corpus)))，再加 1（</w>）；"
           "真正学到的合并数是 len(bpe_toy.train(corpus, num_merges).merges)，"
           "它可能小于 num_merges。",
    make_cases=_vocab_size_cases,
))

register(Exercise(
    key="04.first_merges",
    points=2,
    title="练习 3：训练一次，截出每个更小的词表",
    concept="BPE 的训练是贪心的：第 k 次合并只看前 k−1 次合并留下的计数。所以一次长训练的前 k "
            "次合并，就是单独训练 k 次合并会学到的全部合并；小词表 = 256 个字节 + 特殊 token + "
            "前 k 次合并产生的 token，id 不变。检查器拿你的结果和单独训练出的小词表比较。",
    recipe="later = {a + b for a, b in merges[num_merges:]}（第 k 次以后的合并造出的 token）；"
           "返回 {i: t for i, t in vocab.items() if t not in later}：留下的正是 256 个字节、特殊 "
           "token 和前 k 次合并的结果。特殊 token 的 id 紧跟在 256 个字节之后，所以按 "
           "“id < 256 + k”去截是不对的。",
    make_cases=_first_merges_cases,
    library_twins=("tutorial_lib.bpe.vocab_size.first_merges",
                   "tutorial_lib.bpe.trainer.train_tokenizer"),
))

register(Exercise(
    key="04.embedding_bytes",
    points=2,
    title="练习 4：词表占多少字节（含填充）",
    concept="按 token id 索引的参数有两块：输入嵌入 V×d，和输出层（LM head）d×V。"
            "两者共用一份（tied）时只算一次，不共用（untied）时算两次；再乘以每个参数的字节数。"
            "训练框架还会把 V 向上补到 multiple 的倍数（本来就是倍数时不变），补出的行也占显存。"
            "字节数是整数，不要返回 float。",
    recipe="rows = (vocab_size + multiple - 1) // multiple * multiple；"
           "返回 rows * d_model * (1 if tied else 2) * bytes_per_param（全用整数运算）。",
    make_cases=_bytes_cases,
    library_twins=("tutorial_lib.bpe.embedding.embedding_bytes",
                   "tutorial_lib.bpe.embedding.embedding_params",
                   "tutorial_lib.bpe.embedding.padded_vocab_size"),
))

register(Exercise(
    key="04.utilization",
    points=1,
    title="练习 5：一段文本用到了词表的多少",
    concept="词表利用率 = 这段文本里至少出现过一次的不同 id 的个数 / 词表大小。"
            "同一个 id 出现多少次都只算一次；分母是词表大小，不是 token 数。",
    recipe="len(set(ids)) / vocab_size（ids 都在 0..vocab_size-1 之内）；ids 为空时结果是 0.0。",
    make_cases=_utilization_cases,
    library_twins=("tutorial_lib.text.measure.utilization",),
))
