"""The Megatron .bin/.idx format on a 1 GB token file, and the pipeline that fills it, against numpy and tiktoken.

    .venv/bin/python benchmarks/bench_megatron.py

1. Write: GB_TOKENS uint16 tokens (10^9 bytes) in random documents of 1..2 x DOC_TOKENS tokens, through
   `IndexedDatasetBuilder` (one `add_document` per document, fsync, rename) beside the floor: the same bytes written with one `f.write` per chunk and an fsync. Ratio = our MB/s over
   the floor's.
2. Open and read: each variant in its own new process, so that one does not inflate the other's memory, and
   each first with the file evicted from the page cache (`posix_fadvise DONTNEED`: a first open) and then
   again with it cached. `IndexedDataset` maps the file (np.memmap); `np.fromfile` reads all of it. Each
   process then reads N_SAMPLES windows of SEQ_LEN + 1 tokens at random offsets (a GPT sample). Resident
   memory is VmRSS from /proc/self/status, after the open and after the reads, minus the value before the open.
3. Encode: `Tokenizer.encode_to_numpy` beside `np.array(encode(...))` and `encode` alone, per document of the
   pipeline's corpus, best of REPEATS with the cache warm.
4. Pipeline: `pipeline.build` on a corpus of about PIPELINE_MB MB (the bundled English and Chinese corpora, as
   <|endoftext|>-separated documents, repeated) with GPT-2's tokenizer, 1 and 2 workers, reading, encoding and
   writing included; beside tiktoken's GPT-2 (the same vocabulary, built from the same bundled files) encoding
   the same documents in one thread and in `encode_ordinary_batch` with 2 threads, encoding only. MB = 10^6
   bytes of UTF-8. Every file goes to a temporary directory that is removed at the end.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks
from tiktoken_ext.openai_public import r50k_pat_str

from tutorial_lib import data, pipeline
from tutorial_lib.packing.megatron import IndexedDatasetBuilder, bin_path
from tutorial_lib.tokenization.tokenizer import Tokenizer

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

def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024

variant, prefix, n_samples, width = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
before = rss_mb()
start = time.perf_counter()
tokens = IndexedDataset(prefix).tokens if variant == "mmap" else np.fromfile(bin_path(prefix), np.uint16)
opened = time.perf_counter()
after_open = rss_mb()
starts = np.random.default_rng(0).integers(0, len(tokens) - width, n_samples)
start_reads = time.perf_counter()
total = sum(int(np.array(tokens[s : s + width]).sum()) for s in starts)  # copy each sample, as a loader does
reads = time.perf_counter() - start_reads
print(json.dumps({"open_s": opened - start, "rss_open_mb": after_open - before, "reads_per_s": n_samples / reads,
                  "rss_reads_mb": rss_mb() - before, "checksum": total}))
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
    with IndexedDatasetBuilder(prefix, np.uint16) as builder:
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
    return json.loads(run.stdout)


def format_section(prefix):
    gb = GB_TOKENS * 2 / 1e9
    ours_s, _ = seconds(write_ours, prefix)
    floor_path = prefix.with_name("floor.bin")
    floor_s, _ = seconds(write_floor, floor_path)
    same = same_bytes(floor_path, bin_path(prefix))
    floor_path.unlink()
    print(f"write {gb:.1f} GB of uint16 tokens, documents of ~{DOC_TOKENS} tokens:")
    print(f"  IndexedDatasetBuilder {gb * 1000 / ours_s:8.0f} MB/s   f.write floor {gb * 1000 / floor_s:8.0f} MB/s   "
          f"ratio {floor_s / ours_s:.2f}   same .bin bytes: {same}")
    print(f"open the file, then {N_SAMPLES:,} random samples of {SEQ_LEN + 1} tokens (a new process per row):")
    print(f"  {'':22}{'open (s)':>10}{'RSS after open':>16}{'samples/s':>12}{'RSS after reads':>17}")
    rows = {}
    for cache in ("cold", "warm"):
        for variant in ("mmap", "fromfile"):
            if cache == "cold":
                evict(bin_path(prefix))
            rows[cache, variant] = r = open_and_read(variant, prefix)
            name = f"{'IndexedDataset' if variant == 'mmap' else 'np.fromfile'} ({cache})"
            print(f"  {name:22}{r['open_s']:10.4f}{r['rss_open_mb']:13.1f} MB{r['reads_per_s']:12,.0f}"
                  f"{r['rss_reads_mb']:14.1f} MB")
    for cache in ("cold", "warm"):
        mmap, full = rows[cache, "mmap"], rows[cache, "fromfile"]
        print(f"  {cache}: open {full['open_s'] / mmap['open_s']:,.0f}x faster with mmap, "
              f"{full['rss_open_mb'] / max(mmap['rss_open_mb'], 0.1):,.0f}x less resident memory after the open; "
              f"random reads {mmap['reads_per_s'] / full['reads_per_s']:.2f}x of an in-memory array's rate")


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
    gpt2.encode_to_numpy(EOT.join(docs[: len(docs) // 10]), {EOT})  # warm the cache
    variants = {"encode_to_numpy": gpt2.encode_to_numpy,
                "np.array(encode)": lambda d: np.array(gpt2.encode(d), np.uint32),
                "encode (a list)": gpt2.encode}
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"\nencode {len(docs):,} documents ({mb:.1f} MB) one at a time, warm cache, best of {REPEATS}:")
    times = {name: min(seconds(list, map(f, docs))[0] for _ in range(REPEATS)) for name, f in variants.items()}
    for name, s in times.items():
        print(f"  {name:18}{mb / s:7.2f} MB/s   time / encode_to_numpy's {s / times['encode_to_numpy']:.2f}")


def pipeline_section(gpt2, docs, directory):
    corpus = directory / "corpus.txt"
    corpus.write_text("".join(f"{d}\n{EOT}\n" for d in docs), encoding="utf-8")
    mb = corpus.stat().st_size / 1e6
    enc = tiktoken_gpt2()
    print(f"\npipeline on {mb:.1f} MB of text ({len(docs):,} documents), GPT-2's vocabulary:")
    rows = {}
    for workers in (1, 2):
        summary = pipeline.build(corpus, gpt2, directory / f"w{workers}", split=EOT, workers=workers, progress=False)
        rows[f"pipeline, {workers} worker{'s' if workers > 1 else ''}"] = summary.seconds
    same = all(same_bytes(directory / f"w1{s}", directory / f"w2{s}") for s in (".bin", ".idx"))
    one_thread = min(seconds(lambda: [enc.encode_ordinary(d) + [50256] for d in docs])[0] for _ in range(REPEATS))
    two_threads = min(seconds(lambda: enc.encode_ordinary_batch(docs, num_threads=2))[0] for _ in range(REPEATS))
    rows["tiktoken, 1 thread"], rows["tiktoken, 2 threads"] = one_thread, two_threads
    for name, s in rows.items():
        print(f"  {name:22}{mb / s:8.2f} MB/s   {s:7.2f} s")
    p1, p2 = rows["pipeline, 1 worker"], rows["pipeline, 2 workers"]
    print(f"  2 workers / 1 worker: {p1 / p2:.2f}x; pipeline / tiktoken (1 thread): 1 worker {one_thread / p1:.3f}, "
          f"2 workers {one_thread / p2:.3f}; same bytes with 1 and 2 workers: {same}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        format_section(directory / "tokens")
        bin_path(directory / "tokens").unlink()
        gpt2 = Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
        docs = corpus_documents()
        encode_section(gpt2, docs)
        pipeline_section(gpt2, docs, directory)


if __name__ == "__main__":
    main()
