"""Check tutorial_lib.packing.megatron against megatron-core itself, in both directions (`make interop`).

    .venv/bin/python tools/interop_megatron.py [--megatron-python .interop-venv/bin/python]

Runs in the project's .venv; megatron-core lives in a separate environment (.interop-venv, Python 3.11, see
interop/requirements.txt), reached through `tools/megatron_ops.py` in one subprocess. For every case:

- ours -> megatron: the files our builder writes, read by megatron's IndexedDataset: every sequence (one by
  one, as one slice, and by `get` from its middle), sequence_lengths, sequence_pointers, document_indices.
- megatron -> ours: the files megatron's IndexedDatasetBuilder writes (through add_item + end_document, and
  through add_document(ids, lengths)), read by our IndexedDataset: the same arrays, the header, every document.
- bytes: our .bin and .idx against both of megatron's, byte for byte.
- merge: the case cut into three datasets, merged by our add_index and by megatron's add_index (as its
  tools/merge_datasets.py does): byte-identical to each other and to the whole case written at once; and the
  production path's merge_datasets (tutorial_pipeline.dataset) writes the same bytes as ours.

Every dtype megatron's DType knows goes through both directions. Last, the fixture in data/megatron/ is rebuilt
by tools/make_megatron_fixture.py and compared byte for byte. Prints a table; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutorial_lib.data import gpt2_files, tinystories_documents
from tutorial_lib.packing.megatron import (
    DTYPES,
    IndexedDataset,
    IndexedDatasetBuilder,
    bin_path,
    idx_path,
    optimal_dtype,
    read_header,
    write_dataset,
)
from tutorial_lib.bpe.formats import from_gpt2_files
from tutorial_pipeline.dataset import merge_datasets

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "data" / "megatron"
EOD = 50256  # GPT-2's <|endoftext|>
GPT2_STORIES = 300


@dataclass
class Case:
    """A dataset as lists: each document is its list of sequences (1-D arrays of `dtype`)."""

    name: str
    dtype: np.dtype
    documents: list[list[np.ndarray]]

    @property
    def sequences(self) -> list[np.ndarray]:
        return [sequence for document in self.documents for sequence in document]

    @property
    def sequence_lengths(self) -> np.ndarray:
        return np.array([len(s) for s in self.sequences], dtype=np.int32)

    @property
    def sequence_pointers(self) -> np.ndarray:
        lengths = self.sequence_lengths.astype(np.int64)
        return (np.cumsum(lengths) - lengths) * self.dtype.itemsize

    @property
    def document_indices(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(d) for d in self.documents])]).astype(np.int64)

    @property
    def tokens(self) -> np.ndarray:
        return np.concatenate(self.sequences) if self.sequences else np.zeros(0, self.dtype)

    def save(self, path: Path) -> None:
        """The case as tools/megatron_ops.py reads it."""
        np.savez(path, tokens=self.tokens, sequence_lengths=self.sequence_lengths,
                 document_indices=self.document_indices)


def gpt2_case() -> Case:
    """The first TinyStories stories, GPT-2 ids + EOD, one sequence per story, in megatron's dtype for GPT-2."""
    tokenizer = from_gpt2_files(*gpt2_files(), special_tokens=["<|endoftext|>"])
    dtype = np.dtype(optimal_dtype(tokenizer.vocab_size))
    stories = tinystories_documents()[:GPT2_STORIES]
    return Case("tinystories_gpt2", dtype,
                [[np.array(tokenizer.encode_ordinary(story) + [EOD], dtype=dtype)] for story in stories])


def random_case(name: str, dtype: np.dtype, rng: np.random.Generator, low: int | None = None) -> Case:
    """40 documents of 1 to 5 sequences of random values over the dtype's whole range (from `low`), and edges."""
    dtype = np.dtype(dtype)
    documents = []
    for _ in range(40):
        lengths = rng.integers(1, 60, size=rng.integers(1, 6))
        documents.append([random_values(dtype, rng, int(n), low) for n in lengths])
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    # The dtype's extremes, an empty sequence, and a document of no sequences (document_indices repeats).
    documents += [[np.zeros(0, dtype), np.array([info.min, info.max], dtype=dtype)], []]
    return Case(name, dtype, documents)


def random_values(dtype: np.dtype, rng: np.random.Generator, n: int, low: int | None) -> np.ndarray:
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype) * np.array(1e4, dtype=dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min if low is None else low, info.max, size=n, endpoint=True).astype(dtype)


def cases() -> list[Case]:
    """Real GPT-2 ids, int32 ids past uint16's range, then every other dtype of DTYPES."""
    rng = np.random.default_rng(0)
    return [gpt2_case(), random_case("int32_ids_from_65536", np.int32, rng, low=65536)] + [
        random_case(f"random_{dtype.name}", dtype, rng) for dtype in DTYPES.values() if dtype != np.int32]


def write_ours(case: Case, prefix: Path) -> None:
    """Our builder, sequence by sequence; one-sequence documents go through write_dataset instead."""
    if all(len(document) == 1 for document in case.documents):
        write_dataset(prefix, [document[0] for document in case.documents], dtype=case.dtype)
        return
    with IndexedDatasetBuilder(prefix, dtype=case.dtype) as builder:
        for document in case.documents:
            for sequence in document:
                builder.add_item(sequence)
            builder.end_document()


def merge_ours(prefixes: list[Path], prefix: Path, dtype: np.dtype) -> None:
    """Our builder's add_index of each, in order: what megatron's tools/merge_datasets.py does."""
    with IndexedDatasetBuilder(prefix, dtype=dtype) as builder:
        for part in prefixes:
            builder.add_index(part)


def thirds(case: Case) -> list[Case]:
    cut = np.linspace(0, len(case.documents), 4).astype(int)
    return [Case(f"{case.name}_part{k}", case.dtype, case.documents[a:b])
            for k, (a, b) in enumerate(zip(cut[:-1], cut[1:]))]


def same_files(a: Path, b: Path) -> bool:
    return all(p(a).read_bytes() == p(b).read_bytes() for p in (bin_path, idx_path))


def megatron_read_matches(case: Case, out: Path) -> list[str]:
    """What megatron's IndexedDataset read (saved by megatron_ops.read) that differs from the case."""
    got = np.load(out)
    halves = [s[len(s) // 2:] for s in case.sequences]
    expected = {
        "dtype": np.array(case.dtype.str),
        "sequence_count": np.array(len(case.sequences)),
        "document_count": np.array(len(case.documents) + 1),
        "sequence_lengths": case.sequence_lengths,
        "sequence_pointers": case.sequence_pointers,
        "document_indices": case.document_indices,
        "item_lengths": case.sequence_lengths.astype(np.int64),
        "items": case.tokens,
        "sliced": case.tokens,
        "second_halves": np.concatenate(halves) if halves else np.zeros(0, case.dtype),
    }
    wrong = [key for key, want in expected.items() if not np.array_equal(got[key], want)]
    return wrong + [f"{key}.dtype" for key in ("items", "sliced") if got[key].dtype != case.dtype]


def our_read_matches(case: Case, prefix: Path) -> list[str]:
    """What our IndexedDataset reads from `prefix` that differs from the case."""
    dataset = IndexedDataset(prefix)
    header = read_header(idx_path(prefix))
    checks = {
        "header.version": header.version == 1,
        "header.dtype": header.dtype == case.dtype and dataset.dtype == case.dtype,
        "header.sequence_count": header.sequence_count == len(case.sequences) == len(dataset),
        "header.document_count": header.document_count == len(case.documents) + 1,
        "num_documents": dataset.num_documents == len(case.documents),
        "num_tokens": dataset.num_tokens == len(case.tokens),
        "sequence_lengths": np.array_equal(dataset.sequence_lengths, case.sequence_lengths),
        "sequence_pointers": np.array_equal(dataset.sequence_pointers, case.sequence_pointers),
        "document_indices": np.array_equal(dataset.document_indices, case.document_indices),
        "items": all(np.array_equal(dataset[i], s) for i, s in enumerate(case.sequences)),
        "slice": all(np.array_equal(a, b) for a, b in zip(dataset[0:len(dataset)], case.sequences, strict=True)),
        "get": all(np.array_equal(dataset.get(i, len(s) // 2), s[len(s) // 2:]) for i, s in enumerate(case.sequences)),
        "documents": all(np.array_equal(dataset.document(d), np.concatenate([np.zeros(0, case.dtype), *doc]))
                         for d, doc in enumerate(case.documents)),
    }
    return [name for name, ok in checks.items() if not ok]


def run_megatron(python: str, script: str, *args: str) -> str:
    """Run a script of tools/ with megatron-core's Python; returns what it printed."""
    done = subprocess.run([python, "-W", "ignore", str(ROOT / "tools" / script), *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"megatron-core failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def check(python: str, work: Path) -> list[tuple[Case, dict[str, list[str]]]]:
    """Write everything, let megatron-core do its half in one subprocess, then compare."""
    jobs, plan = [], []
    for case in cases():
        d = work / case.name
        d.mkdir()
        case.save(d / "case.npz")
        write_ours(case, d / "ours")
        parts = thirds(case)
        for part in parts:
            write_ours(part, d / part.name)
        merge_ours([d / p.name for p in parts], d / "ours_merged", case.dtype)
        # the production path's merge; the parts have no manifest (our plain builder writes none)
        merge_datasets([d / p.name for p in parts], d / "pipeline_merged", allow_missing_manifest=True)
        write = {"op": "write", "src": str(d / "case.npz"), "dtype": case.dtype.name}
        jobs += [
            {"op": "read", "prefix": str(d / "ours"), "out": str(d / "megatron_read.npz")},
            {"op": "read", "prefix": str(d / "ours_merged"), "out": str(d / "megatron_read_merged.npz")},
            {**write, "prefix": str(d / "mg_items"), "how": "items"},
            {**write, "prefix": str(d / "mg_documents"), "how": "documents"},
            {"op": "merge", "prefix": str(d / "mg_merged"), "inputs": [str(d / p.name) for p in parts]},
        ]
        plan.append((case, d))
    (work / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    print(run_megatron(python, "megatron_ops.py", str(work / "jobs.json")))
    results = []
    for case, d in plan:
        results.append((case, {
            "ours -> megatron": megatron_read_matches(case, d / "megatron_read.npz"),
            "megatron -> ours": our_read_matches(case, d / "mg_items") + our_read_matches(case, d / "mg_documents"),
            "same bytes": [name for name in ("mg_items", "mg_documents") if not same_files(d / "ours", d / name)],
            "merge": [name for name, ok in {
                "bytes": same_files(d / "ours_merged", d / "mg_merged"),
                "= whole": same_files(d / "ours_merged", d / "ours"),
                "pipeline": same_files(d / "pipeline_merged", d / "ours_merged"),
                "megatron read": not megatron_read_matches(case, d / "megatron_read_merged.npz"),
            }.items() if not ok],
        }))
    return results


def fixture_matches(python: str, work: Path) -> bool:
    """Rebuild data/megatron/ with megatron-core and compare it with the committed files, byte for byte."""
    rebuilt = work / "fixture"
    rebuilt.mkdir()
    run_megatron(python, "make_megatron_fixture.py", "--out", str(rebuilt))
    names = sorted(path.name for path in FIXTURE.iterdir())
    same = names == sorted(path.name for path in rebuilt.iterdir()) and all(
        (FIXTURE / name).read_bytes() == (rebuilt / name).read_bytes() for name in names)
    print(f"fixture data/megatron/ ({len(names)} files) rebuilt by megatron-core: "
          + ("byte-identical" if same else "MISMATCH, run tools/make_megatron_fixture.py and see git diff"))
    return same


def report(results: list[tuple[Case, dict[str, list[str]]]]) -> bool:
    columns = list(results[0][1])
    header = f"{'case':<24} {'dtype':<8} {'seqs':>5} {'docs':>5} {'tokens':>7}  " + "  ".join(
        f"{c:<16}" for c in columns)
    print(header)
    print("-" * len(header))
    ok = True
    for case, found in results:
        cells = ["ok" if not bad else "MISMATCH " + ",".join(bad) for bad in found.values()]
        ok = ok and not any(found.values())
        print(f"{case.name:<24} {case.dtype.name:<8} {len(case.sequences):>5} {len(case.documents):>5} "
              f"{len(case.tokens):>7}  " + "  ".join(f"{c:<16}" for c in cells))
    print("all identical" if ok else "MISMATCHES above")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megatron-python", default=str(ROOT / ".interop-venv" / "bin" / "python"),
                        help="a Python with megatron-core installed (default: .interop-venv/bin/python)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ok = report(check(args.megatron_python, Path(tmp)))
        ok = fixture_matches(args.megatron_python, Path(tmp)) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
