"""Chapter 04 exercises: vocabulary size from merges, embedding bytes, utilization of a vocabulary
on a text; the oracles are `bpe_toy.train`, `vocab_size.embedding_bytes`, `measure.utilization`."""

from __future__ import annotations

import random
from collections import Counter

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.tokenization import bpe_toy, measure, vocab_size


def _vocab_size_cases() -> list[Case]:
    rng = random.Random(4)
    cases = [({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10), ({"aa": 1}, 0), ({"aa": 1}, 5),
             ({"ab": 2, "ba": 1}, 100), ({"人工智能": 3, "人工": 4, "智能": 5, "人工智障": 2}, 4)]
    for _ in range(10):
        words = {"".join(rng.choice("abcde") for _ in range(rng.randint(1, 6))): rng.randint(1, 5)
                 for _ in range(5)}
        cases.append((words, rng.randint(0, 30)))
    return [Case((corpus, n), len(bpe_toy.train(corpus, n).vocab)) for corpus, n in cases]


def _bytes_cases() -> list[Case]:
    cases = [(32768, 4096, True, 2), (32768, 4096, False, 2), (128256, 4096, False, 2),
             (256000, 3584, True, 2), (50257, 768, True, 4), (100, 8, False, 1)]
    return [Case(args, vocab_size.embedding_bytes(*args)) for args in cases]


def _used_share(ids: list[int], size: int) -> float:
    return measure.utilization(Counter(ids), range(size)).used_share


def _utilization_cases() -> list[Case]:
    rng = random.Random(4)
    cases = [([0, 1, 1, 1], 4), ([2, 2, 2], 3), ([5], 10), ([], 3), ([0, 1, 2], 3)]
    for _ in range(10):
        size = rng.randint(1, 30)
        cases.append(([rng.randrange(size) for _ in range(rng.randint(0, 40))], size))
    return [Case(args, _used_share(*args)) for args in cases]


register(Exercise(
    key="04.vocab_size",
    title="练习 1：合并之后词表有多大",
    concept="字符级 BPE 的词表 = 语料里出现的不同字符 + 词尾标记 </w> + 真正学到的合并。"
            "合并次数只是上限：每个词都合成一个符号以后就没有可合并的相邻对了，训练会提前停下。",
    recipe="先数不同字符：len(set(''.join(corpus)))，再加 1（</w>）；"
           "真正学到的合并数是 len(bpe_toy.train(corpus, num_merges).merges)，"
           "它可能小于 num_merges。",
    make_cases=_vocab_size_cases,
))

register(Exercise(
    key="04.embedding_bytes",
    title="练习 2：词表占多少字节",
    concept="按 token id 索引的参数有两块：输入嵌入 V×d，和输出层（LM head）d×V。"
            "两者共用一份（tied）时只算一次，不共用（untied）时算两次；再乘以每个参数的字节数。",
    recipe="params = vocab_size * d_model * (1 if tied else 2)；"
           "返回 params * bytes_per_param（一个整数）。",
    make_cases=_bytes_cases,
))

register(Exercise(
    key="04.utilization",
    title="练习 3：一段文本用到了词表的多少",
    concept="词表利用率 = 这段文本里至少出现过一次的不同 id 的个数 / 词表大小。"
            "同一个 id 出现多少次都只算一次；分母是词表大小，不是 token 数。",
    recipe="len(set(ids)) / vocab_size（ids 都在 0..vocab_size-1 之内）；ids 为空时结果是 0.0。",
    make_cases=_utilization_cases,
))
