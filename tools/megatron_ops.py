"""The megatron-core side of `make interop`: read, write and merge .bin/.idx files with megatron-core itself.

Runs in .interop-venv (megatron-core + torch), never in .venv: `tools/interop_megatron.py` writes a JSON list
of jobs and runs `python tools/megatron_ops.py JOBS.json` there. Each job is one of

    {"op": "read",  "prefix": P, "out": OUT.npz}                    everything IndexedDataset(P) gives back
    {"op": "write", "prefix": P, "src": SRC.npz, "dtype": "uint16",  IndexedDatasetBuilder, sequence by sequence
     "how": "items" | "documents"}                                   (add_item + end_document) or a document at
                                                                     a time (add_document(ids, lengths))
    {"op": "merge", "prefix": P, "inputs": [P1, P2, ...]}           add_index of each input, as merge_datasets.py

SRC.npz holds `tokens` (every sequence, concatenated), `sequence_lengths` and `document_indices` (with the
leading 0, as in the .idx). It imports nothing from this repository, so the files it writes are megatron's own.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version

import numpy as np
import torch
from megatron.core.datasets.indexed_dataset import IndexedDataset, IndexedDatasetBuilder, get_bin_path, get_idx_path


def read(prefix: str, out: str) -> None:
    """Save every sequence read one by one, as one slice and by `get` from its middle, and the index arrays."""
    dataset = IndexedDataset(prefix)
    n = len(dataset)
    items = [dataset[i] for i in range(n)]
    sliced = dataset[0:n] if n else []
    index = dataset.index
    np.savez(
        out,
        dtype=np.dtype(index.dtype).str,
        sequence_count=index.sequence_count,
        document_count=index.document_count,
        sequence_lengths=dataset.sequence_lengths,
        sequence_pointers=index.sequence_pointers,
        document_indices=dataset.document_indices,
        item_lengths=np.array([len(item) for item in items], dtype=np.int64),
        items=np.concatenate(items) if items else np.zeros(0, index.dtype),
        sliced=np.concatenate(sliced) if n else np.zeros(0, index.dtype),
        second_halves=np.concatenate([dataset.get(i, offset=len(item) // 2) for i, item in enumerate(items)] or
                                     [np.zeros(0, index.dtype)]),
    )


def write(prefix: str, src: str, dtype: str, how: str) -> None:
    """Write the sequences and documents of `src` as a training script would hand them to the builder.

    Sequences go in as torch tensors of int64 (float64 for the float dtypes), as the builder's callers do, so
    the narrowing to `dtype` is megatron's own.
    """
    data = np.load(src)
    kind = np.float64 if np.dtype(dtype).kind == "f" else np.int64
    sequences = np.split(data["tokens"].astype(kind), np.cumsum(data["sequence_lengths"])[:-1])
    builder = IndexedDatasetBuilder(get_bin_path(prefix), dtype=getattr(np, dtype))
    bounds = data["document_indices"]
    for start, stop in zip(bounds[:-1], bounds[1:]):
        document = sequences[start:stop]
        if how == "items":
            for sequence in document:
                builder.add_item(torch.from_numpy(sequence))
            builder.end_document()
        else:
            flat = np.concatenate(document) if document else np.zeros(0, kind)
            builder.add_document(torch.from_numpy(flat), [len(s) for s in document])
    builder.finalize(get_idx_path(prefix))


def merge(prefix: str, inputs: list[str]) -> None:
    """Concatenate whole datasets, exactly as megatron's tools/merge_datasets.py does."""
    builder = IndexedDatasetBuilder(get_bin_path(prefix), dtype=IndexedDataset(inputs[0]).index.dtype)
    for path in inputs:
        builder.add_index(path)
    builder.finalize(get_idx_path(prefix))


def main(jobs_path: str) -> None:
    with open(jobs_path, encoding="utf-8") as f:
        jobs = json.load(f)
    for job in jobs:
        op = job.pop("op")
        {"read": read, "write": write, "merge": merge}[op](**job)
    print(f"megatron-core {version('megatron-core')}, torch {torch.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}: {len(jobs)} jobs")


if __name__ == "__main__":
    main(sys.argv[1])
