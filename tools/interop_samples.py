"""Check `tutorial_lib.packing.gpt_samples` against megatron-core's own GPTDataset and build_sample_idx.

Run by the project's .venv python: `python tools/interop_samples.py [--python .interop-venv/bin/python]`.
The megatron side runs in the interop environment (megatron-core + torch) as a subprocess of this same file
(`--megatron-side JOBS.json`), which then imports nothing from this repository:

1. `build_sample_idx` from megatron's compiled helpers against `build_sample_index` on random document lengths,
   orders, sequence lengths and epochs (empty documents included);
2. a .bin/.idx written by megatron-core's IndexedDatasetBuilder, read by our IndexedDataset, and megatron's
   GPTDataset over it against our GPTSamples: the document, sample and shuffle indices, then every sample's
   tokens, labels, loss mask, position ids and attention mask, for several seeds, sample counts and switches.

Prints one line per check and exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EOD = 50256
VOCAB = 50257
CONFIGS = [  # (seq_len, num_samples, seed, reset_position_ids, reset_attention_mask, eod_mask_loss)
    (64, None, 1234, False, False, False),
    (64, None, 7, True, True, True),
    (48, 720, 1234, True, False, True),  # two epochs, the second shuffled on its own
    (48, 1180, 99, False, True, False),  # two epochs, shuffled together
    (31, 2500, 5, True, True, False),  # three epochs, the third shuffled on its own
]


# --- the megatron side (runs in the interop environment) ----------------------------------------------------


class _Tokenizer:
    """The three things GPTDataset asks of a tokenizer here: eod, vocab_size, and identifiers for its cache key."""

    def __init__(self, eod: int, vocab_size: int) -> None:
        self.eod, self.vocab_size = eod, vocab_size
        self.unique_identifiers = {"class": "interop", "eod": eod, "vocab_size": vocab_size}


def megatron_side(jobs_path: str) -> None:
    import torch  # noqa: F401  (megatron's datasets need it; imported first for a clear error if it is missing)
    from megatron.core.datasets import helpers
    from megatron.core.datasets.gpt_dataset import GPTDataset, GPTDatasetConfig
    from megatron.core.datasets.indexed_dataset import IndexedDataset, IndexedDatasetBuilder, get_bin_path, get_idx_path
    from megatron.core.datasets.utils import Split

    jobs = json.loads(Path(jobs_path).read_text())
    cases = np.load(jobs["index_cases"])
    out = {}
    for k in range(int(cases["count"])):
        sizes, order = cases[f"sizes{k}"], cases[f"order{k}"]
        out[f"index{k}"] = helpers.build_sample_idx(sizes, order, int(cases[f"seq_len{k}"]), int(cases[f"epochs{k}"]),
                                                    int(sizes.sum()), True, True)
    np.savez(jobs["index_out"], **out)

    source = np.load(jobs["documents"])
    prefix = jobs["prefix"]
    builder = IndexedDatasetBuilder(get_bin_path(prefix), dtype=np.uint16)
    for document in np.split(source["tokens"], np.cumsum(source["lengths"])[:-1]):
        builder.add_item(torch.from_numpy(document.astype(np.int64)))
        builder.end_document()
    builder.finalize(get_idx_path(prefix))
    dataset = IndexedDataset(prefix)
    for k, (seq_len, num_samples, seed, reset_positions, reset_attention, eod_mask) in enumerate(jobs["configs"]):
        config = GPTDatasetConfig(random_seed=seed, sequence_length=seq_len, blend=([prefix], None), split="1,0,0",
                                  path_to_cache=str(Path(jobs_path).parent / f"cache{k}"),
                                  tokenizer=_Tokenizer(EOD, VOCAB), reset_position_ids=reset_positions,
                                  reset_attention_mask=reset_attention, eod_mask_loss=eod_mask)
        gpt = GPTDataset(dataset, prefix, np.arange(len(dataset), dtype=np.int32), num_samples, Split.train, config)
        samples = [gpt[i] for i in range(len(gpt))]
        np.savez(jobs["config_out"].format(k=k), document_index=gpt.document_index, sample_index=gpt.sample_index,
                 shuffle_index=gpt.shuffle_index,
                 **{key: np.stack([s[key].numpy() for s in samples])
                    for key in ("tokens", "labels", "loss_mask", "position_ids", "attention_mask")})


# --- our side -----------------------------------------------------------------------------------------------


def index_cases(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random document lengths (some empty, some longer than a sample), orders over several epochs, seq_lens."""
    cases: dict[str, np.ndarray] = {}
    k = 0
    for n_documents in (1, 2, 5, 40, 3000):
        for seq_len in (1, 2, 7, 128, 2048):
            sizes = rng.integers(0, 3 * seq_len, n_documents).astype(np.int32)
            sizes[0] = max(int(sizes[0]), 2)
            epochs = int(rng.integers(1, 4))
            order = np.tile(np.arange(n_documents, dtype=np.int32), epochs)
            rng.shuffle(order)
            cases.update({f"sizes{k}": sizes, f"order{k}": order, f"seq_len{k}": np.array(seq_len),
                          f"epochs{k}": np.array(epochs)})
            k += 1
    cases["count"] = np.array(k)
    return cases


def documents(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """300 documents of 0 to 200 random ids, each but the empty ones ending with EOD."""
    lengths = rng.integers(0, 200, 300)
    lengths[[17, 150]] = 0
    tokens = [np.append(rng.integers(0, EOD, n - 1), EOD) if n else np.zeros(0, np.int64) for n in lengths]
    return np.concatenate(tokens).astype(np.uint16), lengths


def report(name: str, ok: bool, detail: str) -> bool:
    print(f"{'ok  ' if ok else 'FAIL'}  {name:<58} {detail}")
    return ok


def compare(python: str, work: Path) -> bool:
    from tutorial_lib.packing.gpt_samples import GPTSamples, build_sample_index, separate_final_epoch
    from tutorial_lib.packing.megatron import IndexedDataset

    rng = np.random.default_rng(0)
    cases = index_cases(rng)
    tokens, lengths = documents(rng)
    np.savez(work / "cases.npz", **cases)
    np.savez(work / "documents.npz", tokens=tokens, lengths=lengths)
    jobs = {"index_cases": str(work / "cases.npz"), "index_out": str(work / "index_out.npz"),
            "documents": str(work / "documents.npz"), "prefix": str(work / "corpus"),
            "configs": CONFIGS, "config_out": str(work / "config{k}.npz")}
    (work / "jobs.json").write_text(json.dumps(jobs))
    # -W ignore: megatron-core warns on import about optional packages (Apex, Transformer Engine) it falls back from
    subprocess.run([python, "-W", "ignore", __file__, "--megatron-side", str(work / "jobs.json")], check=True)

    ok = True
    theirs = np.load(work / "index_out.npz")
    same = [np.array_equal(build_sample_index(cases[f"sizes{k}"], cases[f"order{k}"], int(cases[f"seq_len{k}"])),
                           theirs[f"index{k}"]) for k in range(int(cases["count"]))]
    rows = sum(len(theirs[f"index{k}"]) for k in range(len(same)))
    ok &= report("build_sample_idx == build_sample_index", all(same), f"{sum(same)}/{len(same)} cases, {rows} rows")

    dataset = IndexedDataset(work / "corpus")
    for k, (seq_len, num_samples, seed, reset_positions, reset_attention, eod_mask) in enumerate(CONFIGS):
        ours = GPTSamples(dataset, seq_len, num_samples=num_samples, seed=seed, eod_id=EOD,
                          reset_position_ids=reset_positions, reset_attention_mask=reset_attention,
                          eod_mask_loss=eod_mask)
        theirs = np.load(work / f"config{k}.npz")
        apart = separate_final_epoch(ours.tokens_per_epoch, seq_len, num_samples, ours.num_epochs)
        name = (f"GPTDataset L={seq_len} n={num_samples} seed={seed} "
                f"{'R' if reset_positions else '-'}{'A' if reset_attention else '-'}{'E' if eod_mask else '-'}")
        indices = all(np.array_equal(getattr(ours, key), theirs[key])
                      for key in ("document_index", "sample_index", "shuffle_index"))
        samples = [ours.sample(i) for i in range(len(ours))]
        fields = {"tokens": [s.tokens for s in samples], "labels": [s.labels for s in samples],
                  "loss_mask": [s.loss_mask.astype(np.float32) for s in samples],
                  "position_ids": [s.position_ids for s in samples],
                  "attention_mask": [~s.attention_mask[None] for s in samples]}  # megatron's True = masked out
        bad = [key for key, values in fields.items()
               if len(values) != len(theirs[key]) or not np.array_equal(np.stack(values), theirs[key])]
        ok &= report(name, indices and not bad,
                     f"{len(ours)} samples, {ours.num_epochs} epoch(s){' (last apart)' if apart else ''}; "
                     f"indices {'equal' if indices else 'DIFFER'}"
                     + (f"; differ: {', '.join(bad)}" if bad else "; every field equal"))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=str(ROOT / ".interop-venv" / "bin" / "python"),
                        help="the interop environment's python (megatron-core + torch)")
    parser.add_argument("--megatron-side", metavar="JOBS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.megatron_side:
        megatron_side(args.megatron_side)
        return 0
    if not Path(args.python).exists():
        print(f"no interop python at {args.python}: run `make interop` first, or pass --python", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as work:
        return 0 if compare(args.python, Path(work)) else 1


if __name__ == "__main__":
    sys.exit(main())
