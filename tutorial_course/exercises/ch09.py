"""Chapter 09 exercises: position ids, cu_seqlens and the document mask from doc_ids, and the check
that a mask makes packing invisible; the cases come from `packing.masks`, `packing.batch` and
`packing.attention`, partly on real packed rows (Tatoeba sentences as UTF-8 bytes, packed by
chapter 08's strategies)."""

from __future__ import annotations

import random

import numpy as np

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.packing import attention, batch, masks, strategies
from tutorial_lib.packing.masks import PAD_DOC

TOLERANCE = 1e-6  # same_as_alone: outputs this close are the same (rounding is about 1e-15)


class _Bools(list):
    """An expected row of a mask: equal only to a row of real bools.

    The engine compares lists with ==, and 1 == True, so a mask of 0/1 ints would pass; a row of
    this type is compared first (Python asks the subclass), and it refuses anything but bool.
    """

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, (list, tuple)) and all(type(x) is bool for x in other)
                and list(other) == list(self))

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


def _sentences(seed: int | None, count: int = 40) -> list[list[int]]:
    """Real documents: Tatoeba sentences as their UTF-8 bytes (token ids 0-255), from line 100
    (public cases) or from a line the seed draws."""
    lines = data.load_text("tatoeba_cmn").splitlines()
    start = 100 if seed is None else draw(seed, 9).randrange(len(lines) - count)
    lines = lines[start:start + count]
    return [list(line.encode()) for line in lines]


def _real_rows(seed: int | None = None, length: int = 48, count: int = 3
               ) -> tuple[np.ndarray, np.ndarray]:
    """The first rows of the sentences packed whole by `greedy` (padding after them): tokens and
    doc_ids."""
    packed = strategies.greedy(_sentences(seed), length)
    return packed.rows[:count], packed.doc_ids[:count]


def _real_batch(seed: int | None = None, length: int = 32, count: int = 3) -> list[list[int]]:
    """doc_ids of the first rows of the sentences cut by `concat_chunk`: documents split across
    rows."""
    return strategies.concat_chunk(_sentences(seed), length).doc_ids[:count].tolist()


def _lengths(rng: random.Random) -> list[int]:
    """The document lengths of one row: 0-4 documents of 1-6 tokens."""
    return [rng.randint(1, 6) for _ in range(rng.randint(0, 4))]


def _doc_ids(rows: list[list[int]], rng: random.Random) -> list[list[int]]:
    """doc_ids of a batch with those document lengths per row, plus 0-3 positions of padding."""
    return masks.doc_ids_from_lengths(rows, max(map(sum, rows)) + rng.randint(0, 3)).tolist()


def _row(rng: random.Random) -> list[int]:
    return _doc_ids([_lengths(rng)], rng)[0]


def _mask_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 9)
    rows = [[0, 0, 1], [0, 0, 1, 1, PAD_DOC], [PAD_DOC], [], [3, 3, 3], [0, 1, 2, PAD_DOC, PAD_DOC]]
    rows += [_row(rng) for _ in range(15)] + _real_rows(seed)[1][:2].tolist()
    return [Case((row,), [_Bools(line) for line in masks.document_mask(row).tolist()])
            for row in rows]


def _position_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 9)
    rows = [[0, 0, 1], [0, 0, 1, 1, PAD_DOC], [PAD_DOC, PAD_DOC], [], [7, 7, 7],
            [0, 1, 2, PAD_DOC, PAD_DOC],
            [4, 4, 5, 5, 5, PAD_DOC, PAD_DOC]]
    rows += [_row(rng) for _ in range(15)] + _real_rows(seed)[1].tolist()
    return [Case((row,), masks.position_ids(row).tolist()) for row in rows]


def _cu_seqlens_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 9)
    batches = [[[0, 0, 0, 1, 1, PAD_DOC]], [[0, 0, 1, PAD_DOC], [2, 2, 2, 2]], [[PAD_DOC, PAD_DOC]],
               [[5]],
               [[0, 0, 1, 1], [1, 1, 2, 2]],  # document 1: cut at the end of row 0, on in row 1
               [[0, 0, 1], [1, 1, 1], [1, 2, 2]]]  # document 1 runs over three rows
    batches += [_doc_ids([_lengths(rng) for _ in range(rng.randint(1, 3))], rng) for _ in range(15)]
    batches += [_real_batch(seed), _real_rows(seed)[1].tolist()]
    return [Case((ids,), masks.varlen(ids).cu_seqlens.tolist()) for ids in batches]


def _labels_cases(seed: int | None = None) -> list[Case]:
    """A row of L + 1 tokens and its doc_ids; the labels of its L inputs."""
    rng = draw(seed, 9)
    rows = [[0, 0, 0, 1, 1, PAD_DOC, PAD_DOC], [0, 1, 2], [0, 0], [4, 4, PAD_DOC],
            [PAD_DOC, PAD_DOC]]
    rows += [_row(rng) for _ in range(15)]
    cases = []
    for ids in rows:
        tokens = [rng.randint(0, 99) if doc != PAD_DOC else 0 for doc in ids]
        cases.append(Case((tokens, ids), batch.next_token_labels(tokens, ids)[:-1].tolist()))
    return cases


def _own_document(ids: np.ndarray) -> np.ndarray:
    """Same document, future included: the "same document" matrix not yet and-ed with causality."""
    return (ids[:, None] == ids[None, :]) & (ids[:, None] != PAD_DOC)


def _alone_cases(seed: int | None = None) -> list[Case]:
    """Every head x row x mask x position ids: per document, are its outputs those it gets alone?
    Hidden cases: heads with other weights, other real rows and a random row."""
    weights = 0 if seed is None else draw(seed, 9).randrange(2**31)
    heads = [attention.OneHead.random(256, dim=16, seed=weights),
             attention.RopeHead.random(256, dim=16, seed=weights)]
    tokens, doc_ids = _real_rows(seed, count=2)
    rows = [([3, 1, 4, 1, 5, 9, 2, 6], [0, 0, 0, 1, 1, 2, 2, PAD_DOC])]
    if seed is not None:
        rng, ids = draw(seed, 19), []
        while all(doc == PAD_DOC for doc in ids):  # a row with at least one document
            ids = _row(rng)
        rows.append(([rng.randrange(256) for _ in ids], ids))
    rows += [(t.tolist(), ids.tolist()) for t, ids in zip(tokens, doc_ids)]
    cases = []
    for head in heads:
        for row, ids in rows:
            ids_array = np.array(ids)
            row_masks = [masks.document_mask(ids_array), masks.causal_mask(len(ids)),
                         _own_document(ids_array)]
            for mask in row_masks:
                for positions in (masks.position_ids(ids_array).tolist(), list(range(len(ids)))):
                    diffs = attention.differences_from_alone(head, row, ids, mask, positions)
                    cases.append(Case((head, row, ids, mask, positions),
                                      [d <= TOLERANCE for d in diffs]))
    return cases


register(Exercise(
    key="09.document_mask",
    points=2,
    title="练习 1：从 doc_ids 造文档掩码",
    concept="位置 i 能看位置 j，要同时满足三件事：同一篇文档、j 不在 i 的后面（因果）、"
            "两者都不是填充（-1）。每一格是 True 或 False（bool）：掩码是逻辑值，不是数。",
    recipe="L = len(doc_ids)；返回 L 行 L 列的嵌套列表，第 i 行第 j 个是 "
           "doc_ids[i] == doc_ids[j] and doc_ids[i] != -1 and j <= i。"
           "每一格都要是 True/False（bool），不是 1/0。",
    make_cases=_mask_cases,
    library_twins=("tutorial_lib.packing.masks.document_mask",),
))

register(Exercise(
    key="09.position_ids",
    points=1,
    title="练习 2：每篇文档从 0 开始的 position_ids",
    concept="一篇文档单独运行时从位置 0 开始；拼进一行后，每篇文档的位置编号也要从 0 重新数。"
            "填充不属于任何文档，它的位置编号写 0。",
    recipe="从左到右扫描，记住当前这篇文档从哪一格开始：doc_ids[i] 和前一个不同时，"
           "开始位置 = i；位置 i 的编号是 i - 开始位置；填充（-1）写 0。",
    make_cases=_position_cases,
    library_twins=("tutorial_lib.packing.masks.position_ids",),
))

register(Exercise(
    key="09.cu_seqlens",
    points=2,
    title="练习 3：算 cu_seqlens",
    concept="cu_seqlens 是每段序列长度的前缀和，从 0 开始；"
            "一段 = 同一行里同一个文档 id 的连续位置。"
            "填充不占位置；一篇文档被切到两行时算两段，因为行与行之间本来就互不可见。",
    recipe="逐行扫描：id 与前一个不同、或者到了新的一行，就开始新的一段；跳过 id 为 -1 的位置；"
           "把各段长度依次累加，列表以 0 开头。",
    make_cases=_cu_seqlens_cases,
    library_twins=("tutorial_lib.packing.masks.varlen",),
))

register(Exercise(
    key="09.next_token_labels",
    points=1,
    title="练习 5：文档边界上的 labels",
    concept="输入位置 i 的目标是 tokens[i + 1]；"
            "只有 i 和 i + 1 属于同一篇文档（且不是填充）时才有目标，"
            "否则写 -100，损失函数会跳过它。",
    recipe="返回长度为 len(tokens) - 1 的列表：第 i 个是 tokens[i + 1] "
           "if doc_ids[i] == doc_ids[i + 1] != -1 "
           "else -100。",
    make_cases=_labels_cases,
    library_twins=("tutorial_lib.packing.batch.next_token_labels",),
))

register(Exercise(
    key="09.same_as_alone",
    points=2,
    title="练习 4：拼在行里和单独运行一样吗？",
    concept="一篇文档“单独运行”是：只有它自己的 token、位置编号 0, 1, …, n-1、n×n 的因果掩码。"
            "“拼在行里”是：整行的 token、给定的掩码和位置编号，再取出这篇文档那几格的输出。"
            f"两者每个数的绝对差都不超过 {TOLERANCE:g} 才算一样。单独运行时不能沿用行里的位置编号"
            "或掩码，否则比较的就是行里的设置和它自己。",
    recipe="packed = head(tokens, position_ids, mask)；逐段扫描 doc_ids，跳过填充段；"
           "对从 s 到 e 的一篇文档：alone = head(tokens[s:e], list(range(e - s)), "
           "np.tril(np.ones((e - s, e - s), dtype=bool)))，"
           f"把 bool(np.abs(packed[s:e] - alone).max() <= {TOLERANCE:g}) 放进结果列表。",
    make_cases=_alone_cases,
    library_twins=("tutorial_lib.packing.attention.differences_from_alone",),
))
