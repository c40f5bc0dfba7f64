"""The pipeline's build on a Dask cluster (`tutorial_pipeline.distributed`) beside the one-process build, same run.

    .venv/bin/python benchmarks/bench_distributed.py

A LocalCluster of 2 worker processes with one thread each (this machine's 2 cores), no dashboard. The
inputs: the bundled TinyStories sample, the bundled corpora of one document per line, and the TinyStories
sample 10 times over in one file (14 MB). For each, with GPT-2 (the bundled files):

- `local.build` in this process (workers=1: the bundled files are below the size where it starts
  workers), warm (the tokenizer's cache of encoded pieces filled by the runs before) and cold (a fresh
  copy of the tokenizer each time, as each cluster build sends one to the workers);
- `distributed.build` on the cluster with shards of about a quarter of the input (so each worker gets
  about two) and with the default SHARD_BYTES (64 MiB: one shard per file here);
- MB/s of text (wall time of the whole call: planning, hashing, the tasks, the merge), the shards, and
  whether `.bin` and `.idx` are byte for byte the same as the one-process build's.

The first cluster build also sends the tokenizer to the workers and has them compute its digest; it is
printed on its own line, then every build is timed warm (best of REPEAT). Every file goes to a temporary
directory that is removed at the end.
"""

import logging
import pickle
import tempfile
import time
from pathlib import Path

from tutorial_lib import data
from tutorial_pipeline import distributed, local
from tutorial_lib.bpe.formats import from_gpt2_files

EOT = data.ENDOFTEXT
REPEAT = 3
BIG_TIMES = 10  # the last input: the TinyStories sample 10 times in one file
LINES = ["timemachine.txt", "zh_luxun_nahan_panghuang_gushixinbian.txt", "zh_tatoeba_cmn_sentences.txt",
         *(f"parallel/{p.name}" for p in sorted((data.DATA_DIR / "parallel").glob("*.txt")))]
INPUTS = [("TinyStories sample", [data.corpus_path("tinystories")], EOT),
          (f"{len(LINES)} line corpora", [data.DATA_DIR / name for name in LINES], "line")]


def best(run):
    """The result of the fastest of REPEAT calls of `run`, and its seconds."""
    timed = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        result = run()
        timed.append((time.perf_counter() - start, result))
    seconds, result = min(timed, key=lambda t: t[0])
    return result, seconds


def same(a, b):
    return all(Path(f"{a}{s}").read_bytes() == Path(f"{b}{s}").read_bytes() for s in (".bin", ".idx"))


def main():
    from distributed import Client, LocalCluster

    tok = from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                           silence_logs=logging.ERROR, scheduler_kwargs={"dashboard_address": ":0"})
    client = Client(cluster)
    print(f"LocalCluster(n_workers=2, threads_per_worker=1) started in {time.perf_counter() - start:.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        big = out / "tinystories_x10.txt"  # where the cluster's fixed costs stop mattering as much
        big.write_bytes(data.corpus_path("tinystories").read_bytes() * BIG_TIMES)
        inputs = [*INPUTS, (f"TinyStories x {BIG_TIMES}", [big], EOT)]
        start = time.perf_counter()
        distributed.build(INPUTS[0][1], tok, out / "first", client=client, split=EOT, progress=False)
        print(f"first cluster build (tokenizer sent to the workers, digest checked there): "
              f"{time.perf_counter() - start:.2f} s\n")
        print(f"{'input':<22} {'MB':>6}  {'build':<34} {'shards':>6} {'s':>6} {'MB/s':>6} {'x 1 process':>11}"
              "  same .bin/.idx")
        for name, paths, split in inputs:
            mb = sum(p.stat().st_size for p in paths) / 1e6
            one, one_s = best(lambda: local.build(paths, tok, out / "one", split=split, progress=False))
            print(f"{name:<22} {mb:>6.2f}  {'local.build, 1 process, warm':<34} {'':>6} {one_s:>6.2f} "
                  f"{mb / one_s:>6.2f} {1:>11.2f}")
            cold = []  # each time a fresh copy of the tokenizer, as a worker gets it: no piece cached yet
            for _ in range(REPEAT):
                fresh = pickle.loads(pickle.dumps(tok))
                start = time.perf_counter()
                local.build(paths, fresh, out / "cold", split=split, progress=False)
                cold.append(time.perf_counter() - start)
            print(f"{'':<22} {'':>6}  {'local.build, 1 process, cold':<34} {'':>6} {min(cold):>6.2f} "
                  f"{mb / min(cold):>6.2f} {one_s / min(cold):>11.2f}")
            quarter = max(1, int(mb * 1e6 / 4))
            for label, shard_bytes in ((f"distributed.build, {quarter:,} B", quarter),
                                       ("distributed.build, SHARD_BYTES", distributed.SHARD_BYTES)):
                result, seconds = best(lambda: distributed.build(
                    paths, tok, out / "cluster", client=client, split=split, shard_bytes=shard_bytes,
                    progress=False))
                print(f"{'':<22} {'':>6}  {label:<34} {result.shards:>6} {seconds:>6.2f} "
                      f"{mb / seconds:>6.2f} {one_s / seconds:>11.2f}  {same(out / 'cluster', out / 'one')}")
    client.close()
    cluster.close()
    print("\nOn 2 cores the cluster's 2 workers share the machine with the client, the scheduler and the "
          "other processes; the shards' encoding is the pipeline's own (our encoder), so a cluster of N "
          "machines adds about N times one worker's rate minus the planning, hashing and merge on the client.")


if __name__ == "__main__":  # the cluster's worker processes import this file again
    main()
