"""Chapter 09 exercises: document masks from doc_ids; the cases come from `packing.masks` and
`packing.batch`."""

from __future__ import annotations

import random

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.packing import batch, masks
from tutorial_lib.packing.masks import PAD


def _lengths(rng: random.Random) -> list[int]:
    """The document lengths of one row: 0-4 documents of 1-6 tokens."""
    return [rng.randint(1, 6) for _ in range(rng.randint(0, 4))]


def _doc_ids(rows: list[list[int]], rng: random.Random) -> list[list[int]]:
    """doc_ids of a batch with those document lengths per row, plus 0-3 positions of padding."""
    return masks.doc_ids_from_lengths(rows, max(map(sum, rows)) + rng.randint(0, 3)).tolist()


def _row(rng: random.Random) -> list[int]:
    return _doc_ids([_lengths(rng)], rng)[0]


def _mask_cases() -> list[Case]:
    rng = random.Random(9)
    rows = [[0, 0, 1], [0, 0, 1, 1, PAD], [PAD], [], [3, 3, 3], [0, 1, 2, PAD, PAD]]
    rows += [_row(rng) for _ in range(15)]
    return [Case((row,), masks.document_mask(row).tolist()) for row in rows]


def _cu_seqlens_cases() -> list[Case]:
    rng = random.Random(9)
    batches = [[[0, 0, 0, 1, 1, PAD]], [[0, 0, 1, PAD], [2, 2, 2, 2]], [[PAD, PAD]], [[5]],
               [[0, 0, 1, 1], [1, 1, 2, 2]],  # document 1: cut at the end of row 0, on in row 1
               [[0, 0, 1], [1, 1, 1], [1, 2, 2]]]  # document 1 runs over three rows
    batches += [_doc_ids([_lengths(rng) for _ in range(rng.randint(1, 3))], rng) for _ in range(15)]
    return [Case((ids,), masks.varlen(ids).cu_seqlens.tolist()) for ids in batches]


def _labels_cases() -> list[Case]:
    """A row of L + 1 tokens and its doc_ids; the labels of its L inputs."""
    rng = random.Random(9)
    rows = [[0, 0, 0, 1, 1, PAD, PAD], [0, 1, 2], [0, 0], [4, 4, PAD], [PAD, PAD]]
    rows += [_row(rng) for _ in range(15)]
    cases = []
    for ids in rows:
        tokens = [rng.randint(0, 99) if doc != PAD else 0 for doc in ids]
        cases.append(Case((tokens, ids), batch.next_token_labels(tokens, ids)[:-1].tolist()))
    return cases


register(Exercise(
    key="09.document_mask",
    title="练习 1：从 doc_ids 造文档掩码",
    concept="位置 i 能看位置 j，要同时满足三件事：同一篇文档、j 不在 i 的后面（因果）、"
            "两者都不是填充（-1）。",
    recipe="L = len(doc_ids)；返回 L 行 L 列的嵌套列表，第 i 行第 j 个是 "
           "doc_ids[i] == doc_ids[j] and doc_ids[i] != -1 and j <= i。",
    make_cases=_mask_cases,
))

register(Exercise(
    key="09.cu_seqlens",
    title="练习 2：算 cu_seqlens",
    concept="cu_seqlens 是每段序列长度的前缀和，从 0 开始；"
            "一段 = 同一行里同一个文档 id 的连续位置。"
            "填充不占位置；一篇文档被切到两行时算两段，因为行与行之间本来就互不可见。",
    recipe="逐行扫描：id 与前一个不同、或者到了新的一行，就开始新的一段；跳过 id 为 -1 的位置；"
           "把各段长度依次累加，列表以 0 开头。",
    make_cases=_cu_seqlens_cases,
))

register(Exercise(
    key="09.next_token_labels",
    title="练习 3：文档边界上的 labels",
    concept="输入位置 i 的目标是 tokens[i + 1]；"
            "只有 i 和 i + 1 属于同一篇文档（且不是填充）时才有目标，"
            "否则写 -100，损失函数会跳过它。",
    recipe="返回长度为 len(tokens) - 1 的列表：第 i 个是 tokens[i + 1] "
           "if doc_ids[i] == doc_ids[i + 1] != -1 "
           "else -100。",
    make_cases=_labels_cases,
))
