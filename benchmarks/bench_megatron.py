"""The Megatron .bin/.idx format on a 1 GB token file, and the pipeline that fills it, against numpy and tiktoken.

    .venv/bin/python benchmarks/bench_megatron.py

1. Write: GB_TOKENS uint16 tokens (10^9 bytes) in random documents of 1..2 x DOC_TOKENS tokens, through
   `dataset.AtomicDatasetBuilder` (the production path's: one `add_document` per document, hashed, fsync, rename)
   beside the floor: the same bytes written with one `f.write` per chunk and an fsync. Ratio = our MB/s over
   the floor's.
2. Open and read: each variant in its own new process, so that one does not inflate the other's memory, and
   each first with the file evicted from the page cache (`posix_fadvise DONTNEED`: a first open) and then
   again with it cached. `IndexedDataset` maps the file (np.memmap); `np.fromfile` reads all of it. Each
   process then reads N_SAMPLES windows of SEQ_LEN + 1 tokens at random offsets (a GPT sample). Resident
   memory comes from /proc/self/status, after the open and after the reads, minus the value before the open,
   in two parts: RssAnon (the process's own) and RssFile (pages of the mapped file: page cache, shared by
   every process that maps the file, and given back under memory pressure).
3. Encode: `Tokenizer.encode_to_numpy` beside `np.array(encode(...))` and `encode` alone, per document of the
   pipeline's corpus: a first round warms the cache, then the best of REPEATS rounds of the three in turn.
4. Pipeline: `local.build` on a corpus of about PIPELINE_MB MB (the bundled English and Chinese corpora, as
   <|endoftext|>-separated documents, repeated) with GPT-2's tokenizer, 1 and 2 workers, reading, encoding and
   writing included; beside tiktoken's GPT-2 (the same vocabulary, built from the same bundled files) encoding
   the same documents in one thread (encoding only: no reading, no writing). MB = 10^6 bytes of UTF-8. CPU
   seconds of this process and of the workers show where the time goes when the machine's cores are busy. Every file goes to a temporary directory that is removed at the end.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks
from tiktoken_ext.openai_public import r50k_pat_str

from tutorial_lib import data
from tutorial_pipeline import local
from tutorial_lib.packing.megatron import bin_path
from tutorial_pipeline.dataset import AtomicDatasetBuilder
from tutorial_lib.bpe.formats import from_gpt2_files

GB_TOKENS = 500_000_000  # uint16: 10^9 bytes
DOC_TOKENS = 1000  # mean document length
CHUNK_TOKENS = 1 << 24  # tokens generated at a time, so the writer's own memory stays small
N_SAMPLES = 20_000
SEQ_LEN = 2048
PIPELINE_MB = 20
REPEATS = 3
EOT = data.ENDOFTEXT

# Run in a new process per variant: open the file one way, read random samples, report time and memory.
OPEN_AND_READ = """
import json, sys, time
import numpy as np
from tutorial_lib.packing.megatron import IndexedDataset, bin_path

def rss_mb():  # resident memory: private (anonymous) and mapped from files (page cache, shared, reclaimable)
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return {key: int(fields[key].split()[0]) / 1024 for key in ("RssAnon", "RssFile")}

variant, prefix, n_samples, width = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
before = rss_mb()
start = time.perf_counter()
tokens = IndexedDataset(prefix).tokens if variant == "mmap" else np.fromfile(bin_path(prefix), np.uint16)
open_s = time.perf_counter() - start
after_open = rss_mb()
starts = np.random.default_rng(0).integers(0, len(tokens) - width, n_samples)
start = time.perf_counter()
checksum = sum(int(np.array(tokens[s : s + width]).sum()) for s in starts)  # copy each sample, as a loader does
reads_s = time.perf_counter() - start
after_reads = rss_mb()
print(json.dumps({"open_s": open_s, "reads_s": reads_s, "checksum": checksum,
                  **{f"{key} open": after_open[key] - before[key] for key in before},
                  **{f"{key} reads": after_reads[key] - before[key] for key in before}}))
"""


def seconds(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def documents(rng, n_tokens):
    """Random uint16 documents of 1..2 x DOC_TOKENS tokens, n_tokens in all, generated a chunk at a time."""
    done = 0
    while done < n_tokens:
        chunk = rng.integers(0, 50257, min(CHUNK_TOKENS, n_tokens - done), dtype=np.uint16)
        cuts = np.cumsum(rng.integers(1, 2 * DOC_TOKENS, len(chunk) // DOC_TOKENS + 1))
        yield from np.split(chunk, cuts[cuts < len(chunk)])
        done += len(chunk)


def write_ours(prefix):
    with AtomicDatasetBuilder(prefix, np.uint16) as builder:
        for document in documents(np.random.default_rng(0), GB_TOKENS):
            builder.add_document(document)


def write_floor(path):
    with open(path, "wb") as f:
        for document in documents(np.random.default_rng(0), GB_TOKENS):
            f.write(document.tobytes())
        f.flush()
        os.fsync(f.fileno())


def evict(path):
    """Drop the file's pages from the page cache (of this file only), so the next open reads the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def same_bytes(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        while block := f.read(1 << 24):
            if block != g.read(1 << 24):
                return False
        return not g.read(1)


def open_and_read(variant, prefix):
    run = subprocess.run([sys.executable, "-c", OPEN_AND_READ, variant, str(prefix), str(N_SAMPLES),
                          str(SEQ_LEN + 1)], capture_output=True, text=True, check=True)
    return {key: max(value, 0) for key, value in json.loads(run.stdout).items()}  # a change under 0.5 MB may be < 0


def format_section(prefix):
    gb = GB_TOKENS * 2 / 1e9
    ours_s, _ = seconds(write_ours, prefix)
    floor_path = prefix.with_name("floor.bin")
    floor_s, _ = seconds(write_floor, floor_path)
    same = same_bytes(floor_path, bin_path(prefix))
    floor_path.unlink()
    print(f"write {gb:.1f} GB of uint16 tokens, documents of ~{DOC_TOKENS} tokens:")
    print(f"  AtomicDatasetBuilder  {gb * 1000 / ours_s:8.0f} MB/s   f.write floor {gb * 1000 / floor_s:8.0f} MB/s   "
          f"ratio {floor_s / ours_s:.2f}   same .bin bytes: {same}")
    print(f"open the file, then read {N_SAMPLES:,} random samples of {SEQ_LEN + 1} tokens, a new process per row; "
          "resident MB above the process's own (private + mapped from the file):")
    print(f"  {'':24}{'open (s)':>9}{'samples/s':>11}{'open+reads (s)':>16}{'after open':>16}{'after reads':>16}")
    rows = {}
    for cache in ("cold", "warm"):
        for variant in ("mmap", "fromfile"):
            if cache == "cold":
                evict(bin_path(prefix))
            rows[cache, variant] = r = open_and_read(variant, prefix)
            name = f"{'IndexedDataset' if variant == 'mmap' else 'np.fromfile'} ({cache})"
            print(f"  {name:24}{r['open_s']:9.3f}{N_SAMPLES / r['reads_s']:11,.0f}{r['open_s'] + r['reads_s']:16.2f}"
                  f"{r['RssAnon open']:9.0f} + {r['RssFile open']:4.0f}{r['RssAnon reads']:9.0f} + "
                  f"{r['RssFile reads']:4.0f}")
    for cache in ("cold", "warm"):
        mmap, full = rows[cache, "mmap"], rows[cache, "fromfile"]
        print(f"  {cache}: open {full['open_s'] / mmap['open_s']:,.0f}x faster with mmap; open + reads "
              f"{(full['open_s'] + full['reads_s']) / (mmap['open_s'] + mmap['reads_s']):.2f}x faster; random reads "
              f"alone at {full['reads_s'] / mmap['reads_s']:.2f}x an in-memory array's rate; private memory "
              f"{mmap['RssAnon reads']:.0f} MB vs {full['RssAnon reads']:.0f} MB")


def tiktoken_gpt2():
    encoder_json, vocab_bpe = data.gpt2_files()
    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # read the local files as they are, keep no copy
    ranks = data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json),
                                            vocab_bpe_hash=data.GPT2_FILES["gpt2/vocab.bpe"],
                                            encoder_json_hash=data.GPT2_FILES["gpt2/encoder.json"])
    return tiktoken.Encoding("gpt2_offline", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={EOT: 50256}, explicit_n_vocab=50257)


def corpus_documents():
    """English stories and Chinese lines, the bundled corpora as documents, repeated to ~PIPELINE_MB MB."""
    docs = data.tinystories_documents()
    for name in ("luxun", "tatoeba_cmn", "timemachine"):
        docs += data.split_documents(data.load_text(name), "\n")
    mb = sum(len(d.encode()) for d in docs) / 1e6
    return docs * max(1, round(PIPELINE_MB / mb))


def encode_section(gpt2, docs):
    variants = {"encode_to_numpy": gpt2.encode_to_numpy,
                "np.array(encode)": lambda d: np.array(gpt2.encode(d), np.uint32),
                "encode (a list)": gpt2.encode}
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"\nencode {len(docs):,} documents ({mb:.1f} MB) one at a time, cache warmed by a first pass, best of "
          f"{REPEATS} rounds of the three in turn:")
    times = {name: [] for name in variants}
    for _ in range(REPEATS + 1):
        for name, f in variants.items():
            start = time.perf_counter()
            for d in docs:
                f(d)
            times[name].append(time.perf_counter() - start)
    best = {name: min(t[1:]) for name, t in times.items()}
    for name, s in best.items():
        print(f"  {name:18}{mb / s:7.2f} MB/s   time / encode_to_numpy's {s / best['encode_to_numpy']:.2f}")


def cpu_seconds(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def timed_build(corpus, gpt2, prefix, workers):
    """Wall seconds of one build, and the CPU seconds of this process and of the workers it waited for."""
    main_cpu, workers_cpu = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    summary = local.build(corpus, gpt2, prefix, split=EOT, workers=workers, progress=False)
    return (summary.seconds, cpu_seconds(resource.RUSAGE_SELF) - main_cpu,
            cpu_seconds(resource.RUSAGE_CHILDREN) - workers_cpu)


def pipeline_section(gpt2, docs, directory):
    corpus = directory / "corpus.txt"
    corpus.write_text("".join(f"{d}\n{EOT}\n" for d in docs), encoding="utf-8")
    mb = corpus.stat().st_size / 1e6
    enc = tiktoken_gpt2()
    print(f"\npipeline on {mb:.1f} MB of text ({len(docs):,} documents), GPT-2's vocabulary, best of {REPEATS} "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores before):")
    rows = {}
    for workers in (1, 2):
        name = f"pipeline, {workers} worker{'s' if workers > 1 else ''}"
        rows[name] = min(timed_build(corpus, gpt2, directory / f"w{workers}", workers) for _ in range(REPEATS))
    same = all(same_bytes(directory / f"w1{s}", directory / f"w2{s}") for s in (".bin", ".idx"))
    tiktoken_s = min(seconds(lambda: [enc.encode_ordinary(d) + [50256] for d in docs])[0] for _ in range(REPEATS))
    rows["tiktoken, 1 thread"] = tiktoken_s, tiktoken_s, 0.0
    print(f"  {'':22}{'MB/s':>8}{'wall (s)':>10}{'CPU here (s)':>14}{'CPU workers (s)':>17}")
    for name, (wall, here, workers_cpu) in rows.items():
        print(f"  {name:22}{mb / wall:8.2f}{wall:10.2f}{here:14.2f}{workers_cpu:17.2f}")
    p1, p2 = rows["pipeline, 1 worker"][0], rows["pipeline, 2 workers"][0]
    print(f"  2 workers / 1 worker: {p1 / p2:.2f}x; pipeline / tiktoken (1 thread): 1 worker {tiktoken_s / p1:.3f}, "
          f"2 workers {tiktoken_s / p2:.3f}; same bytes with 1 and 2 workers: {same}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        format_section(directory / "tokens")
        bin_path(directory / "tokens").unlink()
        gpt2 = from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
        docs = corpus_documents()
        encode_section(gpt2, docs)
        pipeline_section(gpt2, docs, directory)


if __name__ == "__main__":
    main()
