"""Chapter 10 exercises: the .idx header and a sequence's byte pointer (the cases are files written
by `packing.megatron` and read back by it), a whole .idx written by hand (held to the bytes
`megatron.write_dataset` writes), Megatron's sample index (`gpt_samples.build_sample_index`) and
which of its samples read a document (`gpt_samples.samples_of_document`)."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path
from random import Random

import numpy as np

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.packing import gpt_samples, megatron


def _header_cases(seed: int | None = None) -> list[Case]:
    """Whole .idx files of small datasets of every dtype, then bare headers with large random
    counts."""
    rng = draw(seed, 10)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (code, dtype) in enumerate(megatron.DTYPES.items()):
            prefix = Path(tmp) / f"d{n}"
            documents = [[1] * rng.randint(0, 4) for _ in range(rng.randint(0, 3))]
            megatron.write_dataset(prefix, documents, dtype)
            cases.append(megatron.idx_path(prefix).read_bytes())
        for n in range(12):
            path = Path(tmp) / f"h{n}.idx"
            path.write_bytes(struct.pack("<9sQBQQ", megatron.MAGIC, megatron.VERSION,
                                         rng.choice(list(megatron.DTYPES)),
                                         rng.randint(0, 2**40), rng.randint(1, 2**40)))
            cases.append(path.read_bytes())
        for n, raw in enumerate(list(cases)):
            (Path(tmp) / f"c{n}.idx").write_bytes(raw)
        headers = [megatron.read_header(Path(tmp) / f"c{n}.idx") for n in range(len(cases))]
    return [Case((raw,), (h.version, megatron.dtype_code(h.dtype), h.sequence_count,
                          h.document_count)) for raw, h in zip(cases, headers)]


def _offset_cases(seed: int | None = None) -> list[Case]:
    """Lengths of a few sequences, a dtype's itemsize and an index; the pointer the builder writes
    for it."""
    rng = draw(seed, 10)
    itemsizes = {1: np.uint8, 2: np.uint16, 4: np.int32, 8: np.int64}
    inputs = [([5, 3], 2, 1), ([5, 3], 4, 1), ([7], 2, 0), ([0, 0, 4], 2, 2), ([1, 2, 3], 8, 2)]
    inputs += [([rng.randint(0, 50) for _ in range(k)], rng.choice(list(itemsizes)),
                rng.randrange(k)) for k in (rng.randint(1, 12) for _ in range(15))]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (lengths, itemsize, i) in enumerate(inputs):
            ds = megatron.write_dataset(Path(tmp) / f"d{n}", [[0] * k for k in lengths],
                                        itemsizes[itemsize])
            cases.append(Case((lengths, itemsize, i), int(ds.sequence_pointers[i])))
            del ds  # close the mapping before the directory goes
    return cases


def _document_cases(seed: int | None = None) -> list[Case]:
    """Document lengths in stream order, seq_len and a document; the samples whose seq_len + 1
    tokens reach it."""
    rng = draw(seed, 10)
    inputs = [([3, 2], 2, 1), ([2, 2, 2], 2, 1), ([4, 4], 4, 1), ([1, 1, 1, 1], 3, 3), ([5], 2, 0),
              ([2, 5, 1], 2, 2)]
    inputs += [([rng.randint(1, 9) for _ in range(n)], rng.randint(1, 8), rng.randrange(n))
               for n in (rng.randint(1, 10) for _ in range(20))]
    cases = []
    for lengths, seq_len, k in inputs:
        if sum(lengths) < 2:
            continue
        index = gpt_samples.build_sample_index(np.array(lengths), np.arange(len(lengths)), seq_len)
        reading = gpt_samples.samples_of_document(index, k).tolist()
        cases.append(Case((lengths, seq_len, k), reading))
    return cases


def _paragraphs(rng: Random | None, count: int) -> list[str]:
    """Lu Xun's first `count` paragraphs (public cases), or `count` from an offset the rng draws."""
    paragraphs = data.split_documents(data.load_text("luxun"), "\n")
    start = 0 if rng is None else rng.randrange(len(paragraphs) - count)
    return paragraphs[start:start + count]


def _idx_cases(seed: int | None = None) -> list[Case]:
    """Documents and a dtype; the .idx bytes `write_dataset` writes for them. Small hand-made ones
    (no document, empty documents, every dtype), then Lu Xun's first paragraphs as UTF-8 bytes."""
    rng = draw(seed, 10)
    inputs = [([], np.dtype(np.uint16)), ([[7]], np.dtype(np.uint16)),
              ([[1, 2, 3], [4, 5]], np.dtype(np.uint16)), ([[1, 2], [], [3]], np.dtype(np.int32))]
    inputs += [([[rng.randint(0, 100) for _ in range(rng.randint(0, 6))]
                 for _ in range(rng.randint(1, 5))], dtype) for dtype in megatron.DTYPES.values()]
    paragraphs = _paragraphs(rng if seed is not None else None, 40)
    inputs.append(([list(text.encode("utf-8")) for text in paragraphs], np.dtype(np.uint8)))
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (documents, dtype) in enumerate(inputs):
            ds = megatron.write_dataset(Path(tmp) / f"d{n}", documents, dtype)
            cases.append(Case((documents, dtype), megatron.idx_path(ds.prefix).read_bytes()))
            del ds  # close the mapping before the directory goes
    return cases


def _sample_index_cases(seed: int | None = None) -> list[Case]:
    """Sizes, a document index and seq_len; the rows of `build_sample_index`, as (position,
    offset) tuples. Hand-made edge cases (a start on a boundary, empty documents, a document read
    twice), random ones, and Lu Xun's paragraph lengths over two shuffled epochs."""
    rng = draw(seed, 10)
    inputs = [([3, 2], [0, 1], 2), ([2, 2], [0, 1], 2), ([4, 0, 3], [0, 1, 2], 3),
              ([5], [0, 0], 3), ([1, 1, 1], [2, 0, 1], 1), ([0, 6], [0, 1], 4)]
    for _ in range(20):
        sizes = [rng.randint(0, 9) for _ in range(rng.randint(1, 6))]
        order = list(range(len(sizes))) * rng.randint(1, 2)
        rng.shuffle(order)
        inputs.append((sizes, order, rng.randint(1, 8)))
    lengths = [len(text.encode("utf-8"))
               for text in _paragraphs(rng if seed is not None else None, 200)]
    shuffle = 1234 if seed is None else rng.randrange(2**31)
    order = gpt_samples.build_document_index(len(lengths), 2, shuffle).tolist()
    inputs.append((lengths, order, 512))
    return [Case((sizes, order, seq_len),
                 [tuple(row) for row in gpt_samples.build_sample_index(
                     np.array(sizes), np.array(order), seq_len).tolist()])
            for sizes, order, seq_len in inputs if sum(sizes[i] for i in order) >= 2]


register(Exercise(
    key="10.parse_header",
    points=1,
    title="练习 1：亲手解析 .idx 的文件头",
    concept="文件头是 5 个紧挨着的字段，全部小端（little-endian）、之间没有对齐填充："
            "9 字节魔数，8 字节版本号，1 字节 dtype 代码，8 字节序列数，8 字节文档索引数。",
    recipe="用 struct.unpack_from('<9sQBQQ', raw)（'<' 表示小端且不对齐），丢掉魔数，"
           "返回 (version, dtype_code, sequence_count, document_count)。",
    make_cases=_header_cases,
    library_twins=("tutorial_lib.packing.megatron.read_header",),
))

register(Exercise(
    key="10.sequence_offset",
    points=1,
    title="练习 2：第 i 个序列从 .bin 的第几个字节开始",
    concept=".bin 里的序列一个接一个、中间没有分隔；"
            ".idx 的 sequence_pointers 记的是字节偏移，不是 token 偏移。",
    recipe="把前 i 个序列的长度加起来（sum(lengths[:i])），再乘以每个 token 的字节数 itemsize。",
    make_cases=_offset_cases,
    library_twins=("tutorial_lib.packing.megatron.write_dataset",),
))

register(Exercise(
    key="10.samples_with_document",
    points=2,
    title="练习 3：哪些样本读到了第 k 篇文档",
    concept="Megatron 把文档首尾相接成一条 token 流，"
            "样本 j 读的是流里第 j·seq_len 到 j·seq_len + seq_len 个 token"
            "（共 seq_len + 1 个，最后一个只当目标用，也是下一个样本的第一个输入）。",
    recipe="第 k 篇文档占流里的 [start, end)，start = sum(lengths[:k])，end = start + lengths[k]；"
           "样本数 n = (sum(lengths) - 1) // seq_len；"
           "返回满足 j·seq_len < end 且 j·seq_len + seq_len >= start 的所有 j。",
    make_cases=_document_cases,
    library_twins=("tutorial_lib.packing.gpt_samples.samples_of_document",
                   "tutorial_lib.packing.gpt_samples.build_sample_index"),
))

register(Exercise(
    key="10.idx_bytes",
    points=2,
    title="练习 4：用 struct 写出整个 .idx",
    concept=".idx = 34 字节的文件头（'<9sQBQQ'：魔数、版本 1、dtype 代码、序列数 S、文档索引数 D）"
            "+ S 个 int32 长度 + S 个 int64 字节指针 + D 个 int64 文档索引；全部小端。"
            "一篇文档一个序列时，文档索引是 0, 1, ..., S，比文档数多一项。",
    recipe="lengths = [len(d) for d in documents]；指针是长度的前缀和乘以 dtype.itemsize"
           "（第一个是 0）；头部用 struct.pack('<9sQBQQ', megatron.MAGIC, 1, "
           "megatron.dtype_code(dtype), S, S + 1)，三个数组分别用 "
           "struct.pack(f'<{S}i', ...)、struct.pack(f'<{S}q', ...)、"
           "struct.pack(f'<{S + 1}q', ...)，按顺序拼成一个 bytes。",
    make_cases=_idx_cases,
    library_twins=("tutorial_lib.packing.megatron.write_dataset",),
))

register(Exercise(
    key="10.sample_index",
    points=3,
    title="练习 5：Megatron 的 sample_index",
    concept="按 document_index 的顺序把文档首尾相接，样本 k 从流里第 k·seq_len 个 token 开始"
            "（相邻样本共用一个 token，所以是 seq_len 而不是 seq_len + 1）；"
            "每行记下这个 token 在第几个位置的文档里、是那篇文档的第几个 token。"
            "样本数是 (总 token 数 - 1) // seq_len，行数比样本数多一。",
    recipe="先算每个位置的文档在流里的起点（sizes[document_index[p]] 的前缀和）；"
           "对 k = 0..n，找到满足 起点[p] <= k·seq_len < 起点[p] + 长度[p] 的 p"
           "（落在边界上的属于从那里开始的文档，空文档跳过；第 0 行总是 (0, 0)），"
           "记 (p, k·seq_len - 起点[p])。",
    make_cases=_sample_index_cases,
    library_twins=("tutorial_lib.packing.gpt_samples.build_sample_index",),
))
