"""Chapter 08 exercises: utilization of padding, and greedy packing; the cases come from
`packing.strategies`."""

from __future__ import annotations

import random

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.packing import strategies


def _length_lists(seed: int) -> list[tuple[list[int], int]]:
    """(lengths, seq_len) with every length <= seq_len, from hand-picked edge cases to random
    ones."""
    rng = random.Random(seed)
    cases = [([3, 1, 4], 4), ([4, 4], 4), ([1], 8), ([2, 2, 2, 2], 4), ([3, 2, 3, 1], 5),
             ([5, 1, 5], 6)]
    for _ in range(20):
        seq_len = rng.choice([8, 16, 64, 512])
        cases.append(([rng.randint(1, seq_len) for _ in range(rng.randint(1, 30))], seq_len))
    return cases


def _utilization_cases() -> list[Case]:
    return [Case((lengths, seq_len), strategies.pad(lengths, seq_len).utilization)
            for lengths, seq_len in _length_lists(8)]


def _greedy_cases() -> list[Case]:
    cases = []
    for lengths, seq_len in _length_lists(9):
        result = strategies.greedy(lengths, seq_len)
        rows = [[segment.doc for segment in result.segments(r)] for r in range(result.n_rows)]
        cases.append(Case((lengths, seq_len), rows))
    return cases


register(Exercise(
    key="08.pad_utilization",
    title="练习 1：一篇文档一行，利用率是多少",
    concept="利用率 = 真实 token 数 / 行里的全部格子数；每行都是 seq_len 个格子，不管文档多长，"
            "不是补到最长的那篇。",
    recipe="行数就是文档数 len(lengths)；返回 sum(lengths) / (len(lengths) * seq_len)。",
    make_cases=_utilization_cases,
))

register(Exercise(
    key="08.greedy_rows",
    title="练习 2：按顺序贪心装行",
    concept="按输入顺序一篇篇放；放得下（当前行已用 + 这篇长度 <= seq_len，恰好装满也算放得下）"
            "就放进当前行，"
            "放不下就另起一行。不排序，也不回头找前面的行。",
    recipe="rows = []；used = seq_len（让第一篇一定开新行）；"
           "对每个下标 i：若 used + lengths[i] > seq_len，"
           "就 rows.append([]) 并令 used = 0；"
           "然后 rows[-1].append(i)，used += lengths[i]。返回 rows。",
    make_cases=_greedy_cases,
))
