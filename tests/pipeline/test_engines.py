"""The pipeline's engines: every engine writes our bytes, the sample check stops one that does not, the
manifest records which one ran, and the work per document stays constant."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tiktoken
import tokenizers

from tutorial_lib import data
from tutorial_pipeline import cli, engines, local
from tutorial_pipeline.engines import (Engine, HuggingFaceEngine, SampleCheck, TiktokenEngine, make_engine)
from tutorial_pipeline import dataset_manifest
from tutorial_lib.packing.megatron import IndexedDataset, bin_path, idx_path
from tutorial_pipeline.dataset import merge_datasets
from tutorial_pipeline.local import build
from tutorial_lib.bpe import course_tokenizer, formats

EOT = data.ENDOFTEXT
ROOT = Path(__file__).resolve().parents[2]
NAMES = list(engines.ENGINES)
LINE_CORPORA = ["luxun", "tatoeba_cmn", "timemachine"] + [  # code_sample holds <|endoftext|> in a line
    name for name in data.CORPORA if name.startswith("flores/")]
SLICE_BYTES = 40_000  # of each line corpus: every script of every corpus, a sixth of their 3.7 MB


@pytest.fixture(scope="module")
def made():
    """Each tokenizer with each engine, made once: an export takes a few tenths of a second."""
    gpt2 = formats.from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])
    course = course_tokenizer.load()
    nfkc = course.replace(normalization="NFKC")
    return {name: (tokenizer, {engine: make_engine(engine, tokenizer) for engine in NAMES})
            for name, tokenizer in (("gpt2", gpt2), ("course", course), ("nfkc", nfkc))}


def pair_bytes(prefix):
    return bin_path(prefix).read_bytes() + idx_path(prefix).read_bytes()


@pytest.fixture(scope="module")
def line_slices(tmp_path_factory):
    """The first lines of each line corpus, SLICE_BYTES of them (whole lines), in a file each."""
    directory = tmp_path_factory.mktemp("slices")
    paths = []
    for name in LINE_CORPORA:
        raw = data.corpus_path(name).read_bytes()
        path = directory / name.replace("/", "_")
        path.write_bytes(raw[:raw.index(b"\n", SLICE_BYTES) + 1])
        paths.append(path)
    return paths


def build_all(tmp_path, tokenizer, engine, name, line_paths, **kwargs):
    """Every bundled corpus through one engine: TinyStories by story, the others by line (a slice of
    each, `line_slices`)."""
    stories = build(data.corpus_path("tinystories"), tokenizer, tmp_path / f"{name}-stories", split=EOT,
                    engine=engine, progress=False, **kwargs)
    lines = build(line_paths, tokenizer, tmp_path / f"{name}-lines",
                  engine=engine, progress=False, **kwargs)
    return [pair_bytes(tmp_path / f"{name}-{part}") for part in ("stories", "lines")], stories, lines


# ------------------------------------------------------------------------------------------ the same bytes


@pytest.mark.parametrize("tokenizer", ["gpt2", "course"])
def test_every_engine_writes_our_bytes_on_every_bundled_corpus(made, line_slices, tmp_path, tokenizer):
    tok, made_engines = made[tokenizer]
    ours, *_ = build_all(tmp_path, tok, made_engines["ours"], "ours", line_slices)
    for name in ("tiktoken", "huggingface"):
        theirs, stories, lines = build_all(tmp_path, tok, made_engines[name], name, line_slices)
        assert theirs == ours, name
        assert stories.engine == lines.engine == name and stories.documents == 1727


def test_a_normalizing_tokenizer_gets_its_normalization_from_ours_in_every_engine(made, tmp_path):
    """NFKC by our normalizer, whatever the engine: full-width forms, ligatures, circled digits, and
    text whose NFKC form looks like the special token (ordinary text, as `encode` keeps it)."""
    tok, made_engines = made["nfkc"]
    text = "ＡＢＣ，１２３ ﬁne ① ＜|endoftext|＞ Ｏｎｃｅ ｕｐｏｎ\n" * 50 + data.load_text("luxun")[:20_000]
    (tmp_path / "nfkc.txt").write_text(text, encoding="utf-8")
    results = {}
    for name in NAMES:
        build(tmp_path / "nfkc.txt", tok, tmp_path / name, engine=made_engines[name], progress=False)
        results[name] = pair_bytes(tmp_path / name)
    assert results["tiktoken"] == results["huggingface"] == results["ours"]
    first = IndexedDataset(tmp_path / "ours").document(0).tolist()
    assert tok.decode(first[:-1]) == "ABC,123 fine 1 <|endoftext|> Once upon"
    assert first.count(tok.special_tokens[EOT]) == 1  # the EOD: the text that NFKC made stays text


def test_workers_write_the_same_bytes_with_every_engine(made, tmp_path, monkeypatch):
    monkeypatch.setattr(local, "BATCH_CHARS", 50_000)  # many batches, so that the workers interleave
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", dict.fromkeys(local.WORKERS_FROM_BYTES, 0))
    tok, made_engines = made["gpt2"]
    build(data.corpus_path("tinystories"), tok, tmp_path / "one", split=EOT, progress=False)
    for name in ("tiktoken", "huggingface"):
        summary = build(data.corpus_path("tinystories"), tok, tmp_path / name, split=EOT, workers=2,
                        engine=made_engines[name], progress=False)
        assert summary.workers == 2 and pair_bytes(tmp_path / name) == pair_bytes(tmp_path / "one")
        assert (tmp_path / f"{name}.manifest.json").read_text() != (tmp_path / "one.manifest.json").read_text()


# -------------------------------------------------------------------------------------- the sample check


class WrongAt(TiktokenEngine):
    """tiktoken, except that the document whose text starts with `marker` gets one id changed.

    Made from a TiktokenEngine of `made` (its state copied): the export to tiktoken, a few seconds
    for GPT-2, is done once for the module, not for each wrong engine."""

    def __init__(self, engine, marker):
        assert type(engine) is TiktokenEngine
        self.__dict__.update(vars(engine))
        self.marker = marker

    def encode_batch(self, texts):
        encoded = super().encode_batch(texts)
        return [ids + (np.arange(len(ids)) == 3) if text.startswith(self.marker) else ids
                for ids, text in zip(encoded, texts)]


def numbered_lines(n):
    return "".join(f"line {i} says hello to the engines\n" for i in range(n))


@pytest.mark.parametrize("wrong, checked", [(0, True), (99, True), (1000, True), (2000, True), (1001, False)])
def test_the_sample_check_stops_a_wrong_engine_before_anything_is_written(made, tmp_path, wrong, checked):
    """The sample is the first 100 documents and every 1000th after: a wrong id there stops the run
    and says where; elsewhere it goes through (a sample, not a proof)."""
    tok, made_engines = made["gpt2"]
    (tmp_path / "lines.txt").write_text(numbered_lines(2500), encoding="utf-8")
    engine = WrongAt(made_engines["tiktoken"], f"line {wrong} ")
    if not checked:
        assert build(tmp_path / "lines.txt", tok, tmp_path / "out", engine=engine, progress=False).documents == 2500
        check = SampleCheck(tok, engine)
        assert sum(1 for _ in check.results(local.encode_batch(engine, 50256, b) for b in check.batches(
            [[("f", k, f"line {k}") for k in range(2500)]]))) == 1 and check.checked == 100 + 2
        return
    with pytest.raises(ValueError) as error:
        build(tmp_path / "lines.txt", tok, tmp_path / "out", engine=engine, progress=False)
    message = str(error.value)
    assert f"lines.txt, the document at index {wrong}: from token 3 on" in message
    assert "the tiktoken engine (tiktoken " in message and "Nothing was written" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lines.txt"]


def test_a_wrong_engine_leaves_the_old_dataset_intact(made, tmp_path, monkeypatch):
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", dict.fromkeys(local.WORKERS_FROM_BYTES, 0))
    monkeypatch.setattr(local, "BATCH_CHARS", 10_000)
    tok, made_engines = made["gpt2"]
    (tmp_path / "lines.txt").write_text(numbered_lines(3000), encoding="utf-8")
    build(tmp_path / "lines.txt", tok, tmp_path / "out", progress=False)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ValueError, match=r"the document at index 2000: from token 3 on"):
        build(tmp_path / "lines.txt", tok, tmp_path / "out", workers=2,
              engine=WrongAt(made_engines["tiktoken"], "line 2000 "),
              progress=False)  # in the workers, and late: the first batches were written already
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_the_sample_is_the_first_documents_and_every_nth_whatever_the_batches(made):
    tok, made_engines = made["gpt2"]
    check = SampleCheck(tok, made_engines["tiktoken"], first=7, every=5)
    for sizes in ([40], [1] * 40, [3, 4, 1, 9, 2, 21], [6, 34]):
        check._seen, starts = 0, np.cumsum([0] + sizes[:-1])
        sampled = sorted(start + i for start, n in zip(starts, sizes) for i in check._sampled(start, n))
        assert sampled == [k for k in range(40) if k < 7 or k % 5 == 0], sizes


# ----------------------------------------------------------------------------------- special tokens, names


@pytest.mark.parametrize("name", NAMES)
def test_a_special_token_in_a_document_is_refused_with_our_message_by_every_engine(made, tmp_path, name):
    tok, made_engines = made["course"]
    (tmp_path / "c.txt").write_text("fine\nalso fine\nnot <|pad|> fine\n", encoding="utf-8")
    with pytest.raises(ValueError) as error:
        build(tmp_path / "c.txt", tok, tmp_path / "out", engine=made_engines[name], progress=False)
    assert str(error.value) == (
        f"{tmp_path / 'c.txt'}, the document at index 2: it contains the special token '<|pad|>' at index 4, "
        "which a document may not hold (it would become a control token). If it separates documents, split on "
        "it: --split '<|pad|>' on the command line, split='<|pad|>' in build()")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_find_special_sees_only_tokens_inside_one_document():
    specials = ("<|a\nb|>", "<|c|>")
    assert engines.find_special(["x <|a", "b|> y"], specials) is None  # only across the join
    assert engines.find_special(["x", "yy <|c|> <|a\nb|>"], specials) == (1, 3, "<|c|>")
    assert engines.find_special([], specials) is None


def test_concatenate_appends_eod_to_lists_and_arrays_alike():
    expected = ([5, 6, 9, 9, 7, 9], [3, 1, 2])
    for encoded in ([[5, 6], [], [7]], [np.array(x, np.uint32) for x in ([5, 6], [], [7])]):
        ids, lengths = engines.concatenate(encoded, 9)
        assert (ids.tolist(), lengths.tolist(), ids.dtype) == (*expected, np.uint32)


def test_engines_are_named_and_made_for_one_tokenizer(made):
    tok, made_engines = made["gpt2"]
    with pytest.raises(ValueError, match=r"engine must be one of \['ours', 'tiktoken', 'huggingface'\], got"):
        make_engine("fast", tok)
    assert make_engine(made_engines["tiktoken"], tok) is made_engines["tiktoken"]
    with pytest.raises(ValueError, match="was made for another tokenizer"):
        make_engine(made_engines["tiktoken"], made["nfkc"][0])
    assert [type(made_engines[n]) for n in NAMES] == [Engine, TiktokenEngine, HuggingFaceEngine]


# --------------------------------------------------------------------------------------------- the manifest


def test_the_manifest_records_the_engine_and_a_merge_keeps_a_common_one(made, tmp_path):
    tok, made_engines = made["course"]
    (tmp_path / "a.txt").write_text("Once upon a time\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("there was a cat\n", encoding="utf-8")
    for shard, name in (("a", "tiktoken"), ("b", "tiktoken"), ("c", "huggingface")):
        build(tmp_path / f"{'b' if shard == 'c' else shard}.txt", tok, tmp_path / shard,
              engine=made_engines[name], progress=False)
    manifest = dataset_manifest.read(tmp_path / "a")
    assert manifest["engine"] == {"name": "tiktoken", "library": "tiktoken", "version": tiktoken.__version__}
    assert dataset_manifest.read(tmp_path / "c")["engine"] == {
        "name": "huggingface", "library": "tokenizers", "version": tokenizers.__version__}
    assert "engine     tiktoken (tiktoken " in dataset_manifest.describe_manifest(manifest)
    assert merge_datasets([tmp_path / "a", tmp_path / "b"], tmp_path / "ab").manifest["engine"] == manifest["engine"]
    assert "engine" not in merge_datasets([tmp_path / "a", tmp_path / "c"], tmp_path / "ac").manifest
    (tmp_path / "a.manifest.json").write_text(json.dumps(manifest | {"engine": {"name": 1}}))
    with pytest.raises(ValueError, match=r"engine\['name'\] must be a str, got 1"):
        dataset_manifest.read(tmp_path / "a")


def test_cli_takes_an_engine(made, tmp_path, capsys):
    tok, _ = made["gpt2"]
    (tmp_path / "t.txt").write_text("Once upon a time\nthere was a cat\n", encoding="utf-8")
    build(tmp_path / "t.txt", tok, tmp_path / "api", progress=False)
    command = [sys.executable, "-m", "tutorial_pipeline", "build", "--tokenizer", "gpt2", "--output",
               str(tmp_path / "cli"), "--quiet", str(tmp_path / "t.txt")]
    run = subprocess.run(command + ["--engine", "tiktoken"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "tiktoken engine, 1 encoding process)" in run.stdout and pair_bytes(tmp_path / "cli") == pair_bytes(
        tmp_path / "api")
    # the same command line in this process (`python -m tutorial_pipeline` exits with what main
    # raises or returns; the run above went through it): one interpreter start less
    with pytest.raises(SystemExit) as exit_:
        cli.main(command[3:] + ["--engine", "fast"])
    assert exit_.value.code == 2 and "invalid choice: 'fast'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ work per document


def python_calls(build_lines):
    """Python and C function calls made while `build_lines()` runs (sys.setprofile's call events)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        build_lines()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("name", NAMES)
def test_the_work_per_document_is_a_constant_number_of_calls(made, tmp_path, name):
    """One-word lines (the reliability issue's case, a million of them in benchmarks/bench_pipeline.py):
    the calls that N more documents add stay within engines.CALLS_PER_DOCUMENT of the engine each."""
    tok, made_engines = made["gpt2"]
    counts = {}
    for n in (4000, 8000):
        (tmp_path / f"{n}.txt").write_text("a\n" * n, encoding="utf-8")
        counts[n] = python_calls(lambda: build(tmp_path / f"{n}.txt", tok, tmp_path / f"out{n}",
                                               engine=made_engines[name], progress=False))
    per_document = (counts[8000] - counts[4000]) / 4000
    assert per_document <= engines.CALLS_PER_DOCUMENT[name], per_document


def test_workers_start_at_each_engines_own_threshold(made, tmp_path, monkeypatch):
    tok, made_engines = made["gpt2"]
    (tmp_path / "t.txt").write_text("Once upon a time\n" * 100, encoding="utf-8")
    size = (tmp_path / "t.txt").stat().st_size
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", {"ours": size, "tiktoken": size + 1, "huggingface": 0})
    started = []
    monkeypatch.setattr(local, "_encode_in_workers", lambda tasks, engine, eod, workers: started.append(
        engine.name) or (local.encode_batch(engine, eod, batch) for batch in tasks))
    summaries = {name: build(tmp_path / "t.txt", tok, tmp_path / name, workers=2, engine=made_engines[name],
                             progress=False) for name in NAMES}
    assert started == ["ours", "huggingface"] and [s.workers for s in summaries.values()] == [2, 1, 2]
