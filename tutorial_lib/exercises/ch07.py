"""Chapter 07 exercises: the attention mask from lengths, labels with IGNORE_INDEX (-100), the
padding share of a batching; the cases come from `packing.masks` and `packing.batch`."""

from __future__ import annotations

import random

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.packing import batch, masks


def _mask_cases() -> list[Case]:
    rng = random.Random(7)
    cases = [([3, 1, 5], 5, "right"), ([3, 1, 5], 5, "left"), ([2], 4, "left"),
             ([0, 2], 3, "right"), ([], 0, "left")]
    for _ in range(12):
        lengths = [rng.randint(0, 8) for _ in range(rng.randint(1, 5))]
        cases.append((lengths, max(lengths) + rng.randint(0, 3), rng.choice(masks.SIDES)))
    return [Case(args, masks.attention_mask_from_lengths(*args).tolist()) for args in cases]


def _labels_cases() -> list[Case]:
    rng = random.Random(7)
    rows = [[[2, 3, 4], [4]], [[5, 0, 6], [0]], [[0]], [[7, 8], [9, 10]]]
    for _ in range(12):
        rows.append([[rng.randint(0, 9) for _ in range(rng.randint(0, 6))]
                     for _ in range(rng.randint(1, 4))])
    cases = []
    for k, ids in enumerate(rows):
        padded = batch.pad(ids, 0, padding_side=masks.SIDES[k % 2])
        cases.append(Case((padded.input_ids, padded.attention_mask), batch.labels(padded).tolist()))
    return cases


def _share_cases() -> list[Case]:
    rng = random.Random(7)
    cases = [([3, 1, 5], 3), ([3, 1, 5], 1), ([1, 4, 2, 3], 2), ([2, 2, 2], 2),
             ([5, 1, 1, 1, 1], 2), ([], 4)]
    for _ in range(12):
        cases.append(([rng.randint(1, 40) for _ in range(rng.randint(1, 20))], rng.randint(1, 6)))
    return [Case(args, batch.ordered_batches(*args).padding_share) for args in cases]


register(Exercise(
    key="07.attention_mask",
    title="练习 1：由长度构造注意力掩码",
    concept="掩码只看每行有几个真实 token，不看 id：1 表示真实 token，0 表示填充；"
            "padding_side='left' 时填充在行首，1 都挤在右端。",
    recipe="对每个长度 n：右填充是 [1]*n + [0]*(width-n)，左填充是 [0]*(width-n) + [1]*n；"
           "把这些行放进一个列表返回。",
    make_cases=_mask_cases,
))

register(Exercise(
    key="07.labels",
    title="练习 2：labels 里的 -100",
    concept="labels 与 input_ids 对齐（不移位，Hugging Face 的模型在内部移位）；"
            "只有掩码为 0 的位置换成 -100。"
            "判断填充要看 attention_mask，不要看 id 是不是 0：id 0 也可能是真实 token。",
    recipe="逐行逐位置：attention_mask 为 1 时取 input_ids 的值，为 0 时写 -100。",
    make_cases=_labels_cases,
))

register(Exercise(
    key="07.padding_share",
    title="练习 3：一种分批方式浪费了多少",
    concept="每一批都要补齐到本批最长的一行，所以这一批占的格子数是 行数 × 最长行；"
            "填充比例 = 填充格子数 / 全部格子数（不是除以真实 token 数）。",
    recipe="按顺序每 batch_size 行切一批（最后一批可以更短）；cells 累加 len(批) * max(批)；"
           "返回 1 - sum(lengths) / cells；没有格子时返回 0.0。",
    make_cases=_share_cases,
))
