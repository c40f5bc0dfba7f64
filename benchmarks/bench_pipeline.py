"""The pipeline (`local.build`) on hostile shapes of text: time and peak memory, beside tiktoken.

    .venv/bin/python benchmarks/bench_pipeline.py

Each case runs in a new process, so that one case does not inflate another's memory. Peak memory is the
process's peak resident set (VmHWM in /proc/self/status) minus its resident set just before the measured
step (after the imports and the tokenizer are loaded): what the step itself added. Not ru_maxrss: Linux
carries it over an exec from the forked copy of the parent, so a child of a big process (benchmarks/run.py
after another benchmark) would report the parent's size.

1. Many documents: LINES one-word lines (2 bytes each with the newline), `--split line`, one worker. Beside
   it tiktoken's GPT-2 (same vocabulary, from the same bundled files) encoding the same lines one by one
   into one uint32 array with an EOD after each (encoding only: no reading, no writing).
2. One long pre-token: PRETOKEN_MB MB of random lowercase letters on one line (the GPT-2 pattern keeps a
   run of letters in one pre-token, and merges never cross pre-tokens, so it is merged whole). Beside it
   tiktoken encoding the same text.
3. Workers on a small input: the bundled TinyStories file, `--split '<|endoftext|>'`, with 1 and with 2
   workers, wall time of the whole command line in a new process (start-up and tokenizer loading
   included), as a user runs it; then what starting workers costs, with and without the tokenizer.
4. Engines (`tutorial_pipeline.engines`): `local.build` with each engine, 1 and 2 workers, on ENGINE_MB MB of
   <|endoftext|>-separated documents (the bundled English and Chinese corpora, repeated, as
   bench_megatron.py makes them), wall time of the whole call (the export, reading, encoding, the sample
   check, writing); beside tiktoken's own encoding of the same documents (encode_ordinary one by one on
   one thread, and encode_ordinary_batch on 2 threads: encoding only, no reading or writing), and beside
   Megatron-LM's tools/preprocess_data.py approach: the documents as JSON lines, a Hugging Face tokenizer
   (transformers' PreTrainedTokenizerFast on our exported tokenizer.json, tokenize then
   convert_tokens_to_ids, as Megatron's HuggingFaceTokenizer does) in a multiprocessing.Pool of 2 over
   the lines (imap, 32 at a time), and one add_document per document. Megatron's own code needs
   megatron-core and torch; this runs its approach, not its code. Every row's .bin and .idx must equal
   ours. The 2-worker rows start their workers whatever the size (WORKERS_FROM_BYTES set to 0); then the
   target again with the tiktoken engine on BIGGER times the corpus, where the workers' start weighs less.
5. Where workers start to pay: each engine with 1 worker and with 2 (WORKERS_FROM_BYTES set to 0) on the
   first 1, 4 and 16 MB of that corpus, then what `build` does by itself with workers=2 (it uses one
   process below the threshold).
6. Per-document cost: LINES one-word lines through each engine (one worker), microseconds per document.
Every file goes to a temporary directory that is removed at the end.
"""

import json
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

from tutorial_lib import data
from tutorial_pipeline import engines, local
from tutorial_pipeline.corpus_files import read_documents
from tutorial_pipeline.interop import hf_json
from tutorial_lib.packing.megatron import IndexedDatasetBuilder, bin_path, idx_path
from tutorial_lib.bpe.formats import from_gpt2_files
from tutorial_lib.bpe.tokenizer import Tokenizer

ROOT = Path(data.__file__).parent.parent  # the tree whose tutorial_lib is measured
LINES = 1_000_000
PRETOKEN_MB = 5
ENGINE_MB = 20  # about: the corpus is whole repeats of the bundled documents
SIZES_MB = (1, 4, 8, 16)
BIGGER = 4
REPEATS = 2
EOT = data.ENDOFTEXT

CHILD = r"""
import json, sys, time
from pathlib import Path

def rss_mb(field="VmRSS"):  # VmHWM: the peak resident set of this program, not of its parent
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith(field)).split()[1]) / 1024

which, corpus, out = sys.argv[1:4]
if which != "tiktoken's own":
    from tutorial_lib import data
    from tutorial_pipeline import local
    from tutorial_lib.bpe.formats import from_gpt2_files
    tok = from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    run = lambda: local.build(corpus, tok, out, split="line", progress=False, engine=which).tokens
else:
    import array
    import numpy as np
    sys.path.insert(0, sys.argv[4])
    from bench_pipeline import tiktoken_gpt2
    enc = tiktoken_gpt2()

    def run():
        ids = array.array("I")
        for line in Path(corpus).read_text(encoding="utf-8").splitlines():
            if line.strip():
                ids.extend(enc.encode_ordinary(line))
                ids.append(50256)
        return len(np.frombuffer(ids, np.uint32))
before = rss_mb()
start = time.perf_counter()
tokens = run()
seconds = time.perf_counter() - start
peak = rss_mb("VmHWM")
print(json.dumps({"tokens": tokens, "seconds": seconds, "peak_mb": peak - before}))
"""


def tiktoken_gpt2():
    """tiktoken's GPT-2 built from the bundled files (no download), as bench_megatron.py builds it."""
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext.openai_public import r50k_pat_str

    encoder_json, vocab_bpe = data.gpt2_files()
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    ranks = data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json),
                                            vocab_bpe_hash=data.GPT2_FILES["gpt2/vocab.bpe"],
                                            encoder_json_hash=data.GPT2_FILES["gpt2/encoder.json"])
    return tiktoken.Encoding("gpt2_offline", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={EOT: 50256}, explicit_n_vocab=50257)


def measure(which: str, corpus: Path, out: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", CHILD, which, str(corpus), str(out),
                          str(Path(__file__).parent)], capture_output=True, text=True, cwd=ROOT, check=False)
    if run.returncode:
        raise RuntimeError(run.stderr)
    return json.loads(run.stdout)


def compare(title: str, corpus: Path, out: Path) -> None:
    ours, theirs = measure("ours", corpus, out), measure("tiktoken's own", corpus, out)
    print(f"{title}: ours {ours['seconds']:.2f} s, +{ours['peak_mb']:.0f} MB peak, {ours['tokens']:,} tokens; "
          f"tiktoken {theirs['seconds']:.2f} s, +{theirs['peak_mb']:.0f} MB peak, {theirs['tokens']:,} tokens; "
          f"time ratio ours/tiktoken {ours['seconds'] / theirs['seconds']:.1f}x", flush=True)


def per_document(lines: Path, out: Path) -> None:
    """Section 6: the cost of a document with each engine, on one-word lines (one worker)."""
    print(f"\n{LINES:,} one-word lines, one worker: the cost of a document (whole build: reading, batching, "
          f"encoding, the sample check, writing; calls bounded by engines.CALLS_PER_DOCUMENT)")
    for which in [*engines.ENGINES, "tiktoken's own"]:
        r = measure(which, lines, out)
        what = "encode_ordinary per line, no reading or writing" if which == "tiktoken's own" else \
            f"at most {engines.CALLS_PER_DOCUMENT[which]} calls"
        print(f"  {which:15}{r['seconds']:7.2f} s {r['seconds'] / LINES * 1e6:6.2f} us/document "
              f"+{r['peak_mb']:4.0f} MB peak  ({what})", flush=True)


def cli_seconds(workers: int, out: Path) -> float:
    command = [sys.executable, "-m", "tutorial_pipeline", "build", "--tokenizer", "gpt2", "--output",
               str(out), "--split", EOT, "--workers", str(workers), "--quiet", str(data.corpus_path("tinystories"))]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def worker_start_seconds(tok: Tokenizer) -> None:
    """Where a small build with workers loses its time: starting 2 workers (spawn, imports) with one
    tiny task, then the same with each engine sent to each."""
    from tutorial_pipeline.workers import map_in_workers

    start = time.perf_counter()
    list(map_in_workers(abs, [-1], 2, job="a benchmark", caller="main"))
    times = [f"bare {time.perf_counter() - start:.2f} s"]
    for name in engines.ENGINES:
        start = time.perf_counter()
        engine = engines.make_engine(name, tok)
        made = time.perf_counter() - start
        list(map_in_workers(abs, [-1], 2, job="a benchmark", caller="main", initializer=local._start_worker,
                            initargs=(engine, 50256)))
        times.append(f"{name} {time.perf_counter() - start - made:.2f} s (+ {made:.2f} s to make it here)")
    print(f"starting 2 workers for one tiny task: {'; '.join(times)}", flush=True)


# ------------------------------------------------------------------------------------ engines, section 4


def engine_corpus(directory: Path) -> tuple[Path, list[str]]:
    docs = data.tinystories_documents()
    for name in ("luxun", "tatoeba_cmn", "timemachine"):
        docs += data.split_documents(data.load_text(name), "\n")
    mb = sum(len(d.encode()) for d in docs) / 1e6
    docs = docs * max(1, round(ENGINE_MB / mb))
    corpus = directory / "corpus.txt"
    corpus.write_text("".join(f"{d}\n{EOT}\n" for d in docs), encoding="utf-8")
    return corpus, docs


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def timed(fn) -> tuple[float, float, float]:
    """Wall seconds of fn(), and the CPU seconds of this process and of the children it reaped."""
    here, children = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start, cpu_seconds(resource.RUSAGE_SELF) - here,
            cpu_seconds(resource.RUSAGE_CHILDREN) - children)


def build_seconds(corpus: Path, tok: Tokenizer, prefix: Path, engine: str, workers: int,
                  forced: bool = False) -> tuple:
    """`timed` of a whole `build` call (the export made inside it, as a user calls it); `forced`: with
    `workers` even below the engine's WORKERS_FROM_BYTES."""
    threshold = local.WORKERS_FROM_BYTES
    if forced:
        local.WORKERS_FROM_BYTES = dict.fromkeys(threshold, 0)
    try:
        return timed(lambda: local.build(corpus, tok, prefix, split=EOT, workers=workers, engine=engine,
                                            progress=False))
    finally:
        local.WORKERS_FROM_BYTES = threshold


def encode_alone(enc, docs: list[str], times: int = 1) -> None:
    """tiktoken alone on one thread, at its fastest: the ids of each document made and dropped."""
    for _ in range(times):
        deque(map(enc.encode_ordinary, docs), maxlen=0)


def encode_kept(enc, docs: list[str], times: int = 1) -> list:
    """tiktoken alone on one thread, each document's ids kept with its EOD, as issue 22 measured it
    (bench_megatron.py): every list stays alive, and Python's garbage collector walks them again and
    again, so this is the slower reference."""
    return [enc.encode_ordinary(d) + [50256] for _ in range(times) for d in docs]


_megatron_tokenizer = None  # each Pool worker's, as Megatron's Encoder.initializer sets it


def _megatron_start(path: str) -> None:
    global _megatron_tokenizer
    from transformers import PreTrainedTokenizerFast

    _megatron_tokenizer = PreTrainedTokenizerFast(tokenizer_file=path)


def _megatron_encode(line: str) -> tuple[list[int], int]:
    """Megatron's Encoder.encode for one JSON line: the text's ids (HuggingFaceTokenizer.text_to_ids:
    tokenize, then convert_tokens_to_ids), then the EOD id."""
    text = json.loads(line)["text"]
    ids = _megatron_tokenizer.convert_tokens_to_ids(_megatron_tokenizer.tokenize(text))
    return ids + [50256], len(line)


def megatron_seconds(docs: list[str], tok: Tokenizer, directory: Path, workers: int = 2) -> tuple:
    """Megatron-LM's tools/preprocess_data.py approach (see the module docstring), timed from the pool's
    start to the finalized dataset; the JSON lines and the tokenizer.json are written before."""
    jsonl = directory / "corpus.jsonl"
    jsonl.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    tokenizer_json = hf_json.to_huggingface(tok, directory / "tokenizer.json")

    def run() -> None:
        with open(jsonl, encoding="utf-8") as fin, \
                multiprocessing.get_context("fork").Pool(workers, _megatron_start, (str(tokenizer_json),)) as pool, \
                IndexedDatasetBuilder(directory / "megatron", "uint16") as builder:
            for ids, _ in pool.imap(_megatron_encode, fin, 32):
                builder.add_document(ids)

    return timed(run)


def print_rows(rows: dict[str, list[tuple]], mb: float, same: dict[str, str]) -> None:
    """The fastest run of each row, with its ratio to tiktoken alone at its fastest."""
    best = {name: min(runs) for name, runs in rows.items()}
    tiktoken_s = best["tiktoken alone, encode_ordinary, 1 thread"][0]
    print(f"  {'':50}{'MB/s':>7}{'wall (s)':>9}{'CPU here':>9}{'CPU workers':>12}{'/ tiktoken':>11}  same bytes")
    for name, (wall, here, children) in best.items():
        print(f"  {name:50}{mb / wall:7.2f}{wall:9.2f}{here:9.2f}{children:12.2f}{tiktoken_s / wall:11.2f}  "
              f"{same.get(name, '')}")


def target(rows: dict[str, list[tuple]], what: str) -> None:
    """The issue's target, against both references: tiktoken at its fastest, and as the issue measured it."""
    ours = min(rows["pipeline, tiktoken, 2 workers"])[0]
    for name in ("tiktoken alone, encode_ordinary, 1 thread", "tiktoken alone, ids kept + EOD (issue 22's way)"):
        ratio = min(rows[name])[0] / ours
        print(f"  target on {what}: the tiktoken engine with 2 workers >= 1.5x {name}: {ratio:.2f}x, "
              f"{'met' if ratio >= 1.5 else 'NOT met'}", flush=True)


def engine_table(directory: Path, tok: Tokenizer) -> None:
    corpus, docs = engine_corpus(directory)
    mb = corpus.stat().st_size / 1e6
    enc = tiktoken_gpt2()
    print(f"\nengines on {mb:.1f} MB of text ({len(docs):,} documents), GPT-2's vocabulary, best of {REPEATS} "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores before):", flush=True)
    rows: dict[str, list[tuple]] = {}
    prefixes = {}
    for _ in range(REPEATS):  # the rows in turn, so that a busy moment does not fall on one row only
        for name in engines.ENGINES:
            for workers in (1, 2):
                row = f"pipeline, {name}, {workers} worker{'s' if workers > 1 else ''}"
                prefixes[row] = directory / f"{name}{workers}"
                rows.setdefault(row, []).append(build_seconds(corpus, tok, prefixes[row], name, workers, True))
        rows.setdefault("tiktoken alone, encode_ordinary, 1 thread", []).append(timed(lambda: encode_alone(enc, docs)))
        rows.setdefault("tiktoken alone, ids kept + EOD (issue 22's way)", []).append(
            timed(lambda: encode_kept(enc, docs)))
        rows.setdefault("tiktoken alone, encode_ordinary_batch, 2 threads", []).append(
            timed(lambda: enc.encode_ordinary_batch(docs, num_threads=2)))
        rows.setdefault("Megatron's approach (HF, Pool of 2)", []).append(megatron_seconds(docs, tok, directory))
    prefixes["Megatron's approach (HF, Pool of 2)"] = directory / "megatron"
    def pair(prefix: Path) -> bytes:
        return bin_path(prefix).read_bytes() + idx_path(prefix).read_bytes()

    same = {row: "yes" if pair(prefix) == pair(directory / "ours1") else "NO" for row, prefix in prefixes.items()}
    print_rows(rows, mb, same)
    target(rows, f"{mb:.0f} MB")
    bigger_input(directory, corpus, tok, enc, docs)
    crossover(directory, corpus, tok)


def bigger_input(directory: Path, corpus: Path, tok: Tokenizer, enc, docs: list[str]) -> None:
    """The target again on BIGGER times the corpus, where starting the workers weighs less."""
    big = directory / "big.txt"
    big.write_text(corpus.read_text(encoding="utf-8") * BIGGER, encoding="utf-8")
    mb = big.stat().st_size / 1e6
    print(f"\nthe tiktoken engine on {mb:.0f} MB ({BIGGER} x that corpus), best of {REPEATS} (load average "
          f"{os.getloadavg()[0]:.1f}):", flush=True)
    rows: dict[str, list[tuple]] = {}
    for _ in range(REPEATS):
        for workers in (1, 2):
            rows.setdefault(f"pipeline, tiktoken, {workers} worker{'s' if workers > 1 else ''}", []).append(
                build_seconds(big, tok, directory / f"big{workers}", "tiktoken", workers))
        rows.setdefault("tiktoken alone, encode_ordinary, 1 thread", []).append(
            timed(lambda: encode_alone(enc, docs, BIGGER)))
        rows.setdefault("tiktoken alone, ids kept + EOD (issue 22's way)", []).append(
            timed(lambda: encode_kept(enc, docs, BIGGER)))
        rows.setdefault(KEPT_AS_PIPELINE, []).append(timed(lambda: encode_concatenated(enc, docs, BIGGER)))
        rows.setdefault(READ, []).append(timed(lambda: deque(read_documents([big], EOT, []), maxlen=0)))
    print_rows(rows, mb, {})
    target(rows, f"{mb:.0f} MB")
    bound(rows)
    big.unlink()


KEPT_AS_PIPELINE = "tiktoken alone, ids kept as the engine keeps them"
READ = "reading and cutting the documents, no encoding"


def encode_concatenated(enc, docs: list[str], times: int = 1) -> list:
    """tiktoken alone, each document's ids copied into its batch's array with its EOD as they come
    (`engines.concatenate` of a `map`, what the tiktoken engine does), in batches of the pipeline's size."""
    kept, batch, size = [], [], 0
    for doc in (d for _ in range(times) for d in docs):
        batch.append(doc)
        size += len(doc) + local.DOC_CHARS
        if size >= local.BATCH_CHARS:
            kept.append(engines.concatenate(map(enc.encode_ordinary, batch), 50256))
            batch, size = [], 0
    return kept + [engines.concatenate(map(enc.encode_ordinary, batch), 50256)]


def bound(rows: dict[str, list[tuple]]) -> None:
    """The best 2 workers can do against tiktoken alone at its fastest (ids dropped): what a worker must do
    at the least is read and cut its documents and keep their ids, two cores doing that with nothing else
    (no process start, no sending, no writing, no sample check)."""
    alone, kept, read = (min(rows[name])[0] for name in ("tiktoken alone, encode_ordinary, 1 thread",
                                                          KEPT_AS_PIPELINE, READ))
    print(f"  the ceiling on 2 cores: keeping the ids takes {kept / alone:.2f}x the time of dropping them, reading "
          f"and cutting adds {read / alone:.2f}x, so 2 workers doing only that reach "
          f"{2 * alone / (kept + read):.2f}x tiktoken alone, encode_ordinary, 1 thread", flush=True)


def crossover(directory: Path, corpus: Path, tok: Tokenizer) -> None:
    """Section 5: 1 worker against 2 forced workers on the first MB of the corpus, and build's choice."""
    text = corpus.read_text(encoding="utf-8")
    print(f"\nworkers on small inputs, seconds (best of {REPEATS}); build's own choice with workers=2 uses one "
          f"process below local.WORKERS_FROM_BYTES[engine], MiB: "
          + ", ".join(f"{name} {size >> 20}" for name, size in local.WORKERS_FROM_BYTES.items()))
    print(f"  {'MB':>4} " + "".join(f"{name + ' 1w':>15}{name[:5] + ' 2w forced':>17}{'build, 2':>10}"
                                     for name in engines.ENGINES))
    for size in SIZES_MB:
        part = directory / f"part{size}.txt"
        cut = text[: size * 10**6]
        part.write_text(cut[: cut.rfind(EOT) + len(EOT)] + "\n", encoding="utf-8")
        cells = []
        for name in engines.ENGINES:
            one = min(build_seconds(part, tok, directory / "p", name, 1) for _ in range(REPEATS))[0]
            two = min(build_seconds(part, tok, directory / "p", name, 2, True) for _ in range(REPEATS))[0]
            chosen = min(build_seconds(part, tok, directory / "p", name, 2) for _ in range(REPEATS))[0]
            cells.append(f"{one:15.2f}{two:17.2f}{chosen:10.2f}")
        print(f"  {part.stat().st_size / 1e6:4.0f} " + "".join(cells), flush=True)


def main() -> None:
    rng = random.Random(0)
    tok = from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        lines = tmp / "lines.txt"
        lines.write_text("".join(rng.choice("abcdefghij") + "\n" for _ in range(LINES)), encoding="utf-8")
        compare(f"{LINES:,} one-word lines ({lines.stat().st_size / 1e6:.0f} MB)", lines, tmp / "lines")
        long = tmp / "long.txt"
        long.write_text("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=PRETOKEN_MB * 10**6)) + "\n",
                        encoding="utf-8")
        compare(f"one {PRETOKEN_MB} MB pre-token", long, tmp / "long")
        one, two = cli_seconds(1, tmp / "one"), cli_seconds(2, tmp / "two")
        print(f"TinyStories sample through the command line: 1 worker {one:.2f} s, 2 workers {two:.2f} s "
              f"(ratio {two / one:.2f})", flush=True)
        worker_start_seconds(tok)
        engine_table(tmp, tok)
        per_document(lines, tmp / "lines")


if __name__ == "__main__":
    main()
