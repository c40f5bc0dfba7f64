"""The streaming pipeline: corpus files -> documents -> ids + EOD -> a Megatron dataset, and its command line."""

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tutorial_lib import data
from tutorial_pipeline import cli, local
from tutorial_pipeline import dataset_manifest, dataset_files as pair
from tutorial_lib.packing.megatron import bin_path, idx_path
from tutorial_pipeline.dataset import CheckedDataset
from tutorial_lib.bpe import course_tokenizer, formats
from tutorial_pipeline.local import build
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest
from tutorial_lib.bpe.trainer import train_tokenizer

EOT = data.ENDOFTEXT
EOD = 50256  # GPT-2's <|endoftext|>
TINYSTORIES = data.corpus_path("tinystories")



@pytest.fixture
def small_batches(monkeypatch):
    """Batches of ~20,000 characters, so that a bundled corpus makes many and workers interleave."""
    monkeypatch.setattr(local, "BATCH_CHARS", 20_000)


@pytest.fixture
def workers_on_small_files(monkeypatch):
    """Workers even for a bundled corpus, which is below the size where `build` starts them."""
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", dict.fromkeys(local.WORKERS_FROM_BYTES, 0))


def read_dataset(prefix):
    dataset = CheckedDataset(prefix)  # opened once: not once per document (6 s for TinyStories' 1,727)
    return [dataset.document(i).tolist() for i in range(dataset.num_documents)]


def files_in(directory):
    return sorted(p.name for p in directory.iterdir())


# -------------------------------------------------------------------------------------------------- build


def test_one_and_two_workers_write_the_same_bytes(gpt2, tmp_path, small_batches, workers_on_small_files):
    one = build(TINYSTORIES, gpt2, tmp_path / "one", split=EOT, progress=False)
    two = build(TINYSTORIES, gpt2, tmp_path / "two", split=EOT, workers=2, progress=False)
    for suffix in (".bin", ".idx"):
        assert (tmp_path / f"one{suffix}").read_bytes() == (tmp_path / f"two{suffix}").read_bytes()
    assert (one.documents, one.tokens) == (two.documents, two.tokens) == (1727, 347_005)


def test_every_document_decodes_to_its_text_then_eod(gpt2, tmp_path, small_batches):
    summary = build([TINYSTORIES, data.corpus_path("luxun")], gpt2, tmp_path / "two_files", split=EOT,
                    progress=False)
    texts = data.tinystories_documents() + data.split_documents(data.load_text("luxun"), EOT)
    dataset = CheckedDataset(tmp_path / "two_files")
    assert dataset.dtype == np.uint16  # GPT-2 has 50,257 ids: Megatron's rule picks uint16
    assert summary.documents == dataset.num_documents == len(texts)
    assert summary.tokens == dataset.num_tokens
    assert summary.text_bytes == TINYSTORIES.stat().st_size + data.corpus_path("luxun").stat().st_size
    for i, text in enumerate(texts):
        ids = dataset.document(i).tolist()
        assert ids[-1] == EOD and gpt2.decode(ids[:-1]) == text and EOD not in ids[:-1]


def test_line_split_and_int32(gpt2, tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("first line\n\nsecond, 第二行\n   \nthird\n", encoding="utf-8")
    summary = build(path, gpt2, tmp_path / "lines", dtype="int32", progress=False)
    dataset = CheckedDataset(tmp_path / "lines")
    assert dataset.dtype == np.int32 and summary.documents == 3
    assert [gpt2.decode(ids) for ids in read_dataset(tmp_path / "lines")] == [
        f"first line{EOT}", f"second, 第二行{EOT}", f"third{EOT}"]


@pytest.mark.parametrize("content", ["", "\n\n  \n\t\n"])
def test_an_empty_file_gives_an_empty_dataset(gpt2, tmp_path, content):
    path = tmp_path / "empty.txt"
    path.write_text(content, encoding="utf-8")
    summary = build(path, gpt2, tmp_path / "empty", progress=False)
    assert (summary.documents, summary.tokens) == (0, 0)
    assert CheckedDataset(tmp_path / "empty").num_documents == 0
    assert files_in(tmp_path) == ["empty.bin", "empty.idx", "empty.manifest.json", "empty.pair.json", "empty.txt"]


def test_a_file_that_is_not_utf8_leaves_no_output_and_the_old_dataset_intact(gpt2, tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("an old dataset\n", encoding="utf-8")
    build(good, gpt2, tmp_path / "out", progress=False)
    old = (tmp_path / "out.bin").read_bytes(), (tmp_path / "out.idx").read_bytes()
    bad.write_bytes("fine\n".encode() * 1000 + "caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"bad.txt is not UTF-8 text: byte 5003 \(b'\\xe9'\)"):
        build([good, bad], gpt2, tmp_path / "out", progress=False)
    assert files_in(tmp_path) == ["bad.txt", "good.txt", "out.bin", "out.idx", "out.manifest.json", "out.pair.json"]
    assert ((tmp_path / "out.bin").read_bytes(), (tmp_path / "out.idx").read_bytes()) == old


def test_an_interrupted_build_leaves_nothing_behind(gpt2, tmp_path, monkeypatch, small_batches):
    encode_batch, calls = local.encode_batch, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of the corpus
        return encode_batch(*args)

    monkeypatch.setattr(local, "encode_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(TINYSTORIES, gpt2, tmp_path / "partial", split=EOT, progress=False)
    assert files_in(tmp_path) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_special_token_inside_a_document_is_an_error_that_says_where(gpt2, tmp_path, workers,
                                                                      workers_on_small_files):
    # Split by line, TinyStories' separator lines are documents that hold <|endoftext|> as text.
    with pytest.raises(ValueError, match=r"tinystories_v2_sample.txt, the document at index 5: it contains the "
                                         r"special token '<\|endoftext\|>' at index 0, .* split on it: "
                                         r"--split '<\|endoftext\|>' on the command line"):
        build(TINYSTORIES, gpt2, tmp_path / "out", workers=workers, progress=False)
    assert files_in(tmp_path) == []


@pytest.mark.parametrize("kwargs, error, message", [
    ({"paths": []}, ValueError, "paths must name at least one corpus file"),
    ({"paths": "missing.txt"}, FileNotFoundError, "no such corpus file: missing.txt"),
    ({"tokenizer": "gpt2"}, TypeError, "tokenizer must be a tutorial_lib Tokenizer"),
    ({"split": ""}, ValueError, "split must be a non-empty str"),
    ({"eod": "<|pad|>"}, ValueError, r"eod must be a special token of the tokenizer \(\['<\|endoftext\|>'\]\)"),
    ({"dtype": "int64"}, ValueError, r"dtype must be one of \['auto', 'uint16', 'int32'\]"),
    ({"workers": 0}, ValueError, r"workers must be an int in \[1, 256\], got 0"),
    ({"progress": "no"}, TypeError, "progress must be True or False"),
])
def test_build_checks_its_arguments_before_writing(gpt2, tmp_path, kwargs, error, message):
    arguments = {"paths": TINYSTORIES, "tokenizer": gpt2, "prefix": tmp_path / "out"} | kwargs
    with pytest.raises(error, match=message):
        build(**arguments)
    assert files_in(tmp_path) == []


def test_summary_reads_as_one_line(gpt2, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("a b\nc\n", encoding="utf-8")
    summary = build(path, gpt2, tmp_path / "two", progress=False)
    assert str(summary).startswith(f"{tmp_path / 'two'}: 2 documents, 5 tokens from 6 bytes of text in ")
    assert summary.mb_per_second > 0


# ------------------------------------------------------------------------------------------------ the manifest


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def course():
    return course_tokenizer.load()


def test_the_manifest_of_a_build_is_the_dataset_its_tokenizer_and_its_corpus(course, tmp_path, small_batches):
    corpus = [TINYSTORIES, data.corpus_path("luxun")]
    summary = build(corpus, course, tmp_path / "d", split=EOT, progress=False)
    dataset = CheckedDataset(tmp_path / "d")
    manifest = json.loads(summary.manifest.read_text())
    assert summary.manifest == dataset_manifest.manifest_path(tmp_path / "d") and manifest == dataset.manifest
    assert (manifest["documents"], manifest["sequences"], manifest["tokens"]) == (
        summary.documents, len(dataset), dataset.num_tokens) == (dataset.num_documents, dataset.num_documents,
                                                                 summary.tokens)
    for key, path in (("bin", bin_path), ("idx", idx_path)):
        assert manifest[key] == {"bytes": path(tmp_path / "d").stat().st_size, "sha256": sha256(path(tmp_path / "d"))}
    assert manifest["corpus"] == [{"path": str(p), "bytes": p.stat().st_size, "sha256": sha256(p)} for p in corpus]
    digests = {key: value for key, value in tokenizer_manifest.manifest(course).items()  # what the tokenizer's own manifest lists
               if key.endswith("_sha256") and key != "tokenizer_sha256"}
    assert {"vocab_sha256", "merges_sha256", "settings_sha256"} <= set(digests)
    assert manifest["tokenizer"] == {"digest": tokenizer_manifest.digest(course), "vocab_size": 4096, "eod": EOT,
                                     "eod_id": course.special_tokens[EOT], "normalization": "none",
                                     "digests": digests}
    assert manifest["dtype"] == "uint16"


def test_two_builds_and_any_number_of_workers_write_the_same_manifest(course, tmp_path, small_batches,
                                                                      workers_on_small_files):
    for name, workers in (("one", 1), ("two", 2)):
        build(TINYSTORIES, course, tmp_path / name, split=EOT, workers=workers, progress=False)
    assert (tmp_path / "one.manifest.json").read_bytes() == (tmp_path / "two.manifest.json").read_bytes()


def test_the_corpus_is_read_once(course, tmp_path, monkeypatch):
    opened, real_open = [], io.open

    def counting_open(path, *args, **kwargs):
        if not isinstance(path, int) and Path(path).name == TINYSTORIES.name:
            opened.append(path)
        return real_open(path, *args, **kwargs)

    for where in ("builtins.open", "io.open"):  # open() and Path.open / read_bytes
        monkeypatch.setattr(where, counting_open)
    build(TINYSTORIES, course, tmp_path / "d", split=EOT, progress=False)
    assert len(opened) == 1  # hashed while it was tokenized, not read again for the manifest


def test_a_dtype_that_cannot_hold_the_vocabulary_is_refused_before_anything_is_written(gpt2, tmp_path):
    big = Tokenizer(gpt2.vocab | {70_000: b"<|big|>"}, gpt2.merges, [EOT, "<|big|>"])  # 70,001 ids
    path = tmp_path / "c.txt"
    path.write_text("every id of this text fits uint16\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"dtype='uint16': uint16 holds ids up to 65,535, but the tokenizer has "
                                         r"70,001 ids \(0\.\.70,000\); use a wider dtype"):
        build(path, big, tmp_path / "out", dtype="uint16", progress=False)
    assert files_in(tmp_path) == ["c.txt"]
    build(path, big, tmp_path / "out", progress=False)  # auto: int32
    assert CheckedDataset(tmp_path / "out").manifest["dtype"] == "int32"


def test_tokenizer_fields_follow_the_contract(gpt2):
    fields = local.tokenizer_fields(gpt2)
    assert fields["digest"] == tokenizer_manifest.digest(gpt2) and fields["eod_id"] == EOD and "tokenizer_sha256" not in fields["digests"]
    nfkc = Tokenizer(gpt2.vocab, gpt2.merges, [EOT], normalization="NFKC")
    assert local.tokenizer_fields(nfkc)["normalization"] == "NFKC"
    assert local.tokenizer_fields(nfkc)["digest"] != fields["digest"]
    with pytest.raises(ValueError, match="eod must be a special token"):
        local.tokenizer_fields(gpt2, "<|pad|>")


# the tokenizer is `trained` saved to a file (`saved_trained`): loaded in a fraction of GPT-2's time
SCRIPT = ("from tutorial_lib import data\n"
          "from tutorial_pipeline import local\n"
          "local.WORKERS_FROM_BYTES = dict.fromkeys(local.WORKERS_FROM_BYTES, 0)  # workers even for a small corpus\n"
          "from tutorial_lib.contract import manifest\n"
          "BUILD = lambda: print(local.build(data.corpus_path('timemachine'), manifest.load({tokenizer!r}), "
          "'out', workers=2, progress=False).documents)\n")


@pytest.fixture(scope="module")
def saved_trained(trained, tmp_path_factory):
    return str(tokenizer_manifest.save(trained, tmp_path_factory.mktemp("tokenizer") / "tok.json"))


@pytest.mark.parametrize("guarded", [True, False])
def test_a_script_without_the_main_guard_fails_fast_and_says_what_to_add(tmp_path, saved_trained, guarded):
    script = tmp_path / "build.py"
    script.write_text(SCRIPT.format(tokenizer=saved_trained) + ('if __name__ == "__main__":\n    BUILD()\n' if guarded else "BUILD()\n"),
                      encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    if guarded:
        assert (run.returncode, run.stdout) == (0, "2848\n"), run.stderr
    else:
        assert run.returncode == 1 and run.stdout == ""
        last_line = run.stderr.strip().splitlines()[-1]
        assert last_line.startswith("RuntimeError: a worker process of the pipeline died")
        assert 'put that call under `if __name__ == "__main__":`' in last_line
        assert files_in(tmp_path) == ["build.py"]


# ------------------------------------------------------------------------------------------------ command line


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tutorial_pipeline", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_cli_builds_what_build_builds(gpt2, tmp_path):
    run = run_cli("build", "--tokenizer", "gpt2", "--output", "cli", "--split", EOT, "--workers", "2", TINYSTORIES,
              cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("cli: 1,727 documents, 347,005 tokens from 1,424,243 bytes of text in ")
    assert "tokenizing: 100%" in run.stderr  # the progress bar
    build(TINYSTORIES, gpt2, tmp_path / "api", split=EOT, progress=False)
    assert read_dataset(tmp_path / "cli") == read_dataset(tmp_path / "api")


def test_cli_takes_a_saved_tokenizer_and_a_dtype(tmp_path):
    tokenizer = train_tokenizer([data.load_text("timemachine")[:20_000]], 300, [EOT])
    tokenizer_manifest.save(tokenizer, tmp_path / "tok.json")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Time travelling.\n\nA second paragraph,\nof two lines.\n", encoding="utf-8")
    run = run_cli("build", "--tokenizer", "tok.json", "--output", "out", "--split", "blank", "--dtype", "int32",
              "--quiet", "corpus.txt", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (0, "")
    dataset = CheckedDataset(tmp_path / "out")
    assert dataset.dtype == np.int32
    assert [tokenizer.decode(ids) for ids in read_dataset(tmp_path / "out")] == [
        f"Time travelling.{EOT}", f"A second paragraph,\nof two lines.{EOT}"]


@pytest.mark.parametrize("args, message", [
    (["build", "--output", "out", "c.txt"], "the following arguments are required: --tokenizer"),
    (["build", "--tokenizer", "gpt2", "c.txt"], "the following arguments are required: --output"),
    (["build", "--tokenizer", "gpt2", "--output", "out"], "the following arguments are required: FILES"),
    (["build", "--tokenizer", "gpt2", "--output", "out", "--workers", "0", "c.txt"],
     "argument --workers: must be an int from 1 to 256, got '0'"),
    (["build", "--tokenizer", "gpt2", "--output", "out", "--dtype", "int8", "c.txt"],
     "argument --dtype: invalid choice: 'int8'"),
    (["build", "--tokenizer", "gpt2", "--output", "out", "missing.txt"], "no such corpus file: missing.txt"),
    (["build", "--tokenizer", "missing.json", "--output", "out", "c.txt"], "missing.json"),
    (["convert"], "argument command: invalid choice: 'convert'"),
    ([], "the following arguments are required: command"),
])
def test_cli_bad_usage_exits_with_2_and_says_why(tmp_path, args, message):
    (tmp_path / "c.txt").write_text("text\n", encoding="utf-8")
    run = run_cli(*args, cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert message in run.stderr and "usage: tutorial-megatron" in run.stderr
    assert files_in(tmp_path) == ["c.txt"]


# Ctrl-C, SIGTERM, SIGHUP and SIGKILL of a CLI build with workers: tests/pipeline/faults/test_cleanup_workers.py


def test_cli_bad_input_exits_with_1_without_a_traceback(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9\n")
    run = run_cli("build", "--tokenizer", "gpt2", "--output", "out", "bad.txt", cwd=tmp_path)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip().splitlines()[-1] == ("tutorial-megatron: error: bad.txt is not UTF-8 text: byte 3 "
                                                   "(b'\\xe9') is invalid continuation byte; convert the file to "
                                                   "UTF-8 first")
    assert files_in(tmp_path) == ["bad.txt"]


def test_the_console_script_is_the_same_command(tmp_path):
    script = Path(sys.executable).with_name("tutorial-megatron")  # installed from pyproject's [project.scripts]
    run = subprocess.run([str(script), "build", "--tokenizer", "gpt2"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2 and "usage: tutorial-megatron build" in run.stderr
    run = subprocess.run([str(script), "verify"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2 and "usage: tutorial-megatron verify" in run.stderr


# ------------------------------------------------------------------------------------------------ verify


@pytest.fixture
def built(course, tmp_path):
    (tmp_path / "c.txt").write_text("Once upon a time\nthere was a cat\n", encoding="utf-8")
    build(tmp_path / "c.txt", course, tmp_path / "d", progress=False)
    return tmp_path / "d"


def test_cli_verify_prints_the_manifest_and_exits_with_0_when_everything_matches(course, built):
    run = run_cli("verify", "d", cwd=built.parent)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    manifest = CheckedDataset(built).manifest
    lines = run.stdout.splitlines()
    assert lines[0] == "format     tutorial_lib dataset manifest, version 1"
    assert lines[1] == f"tokenizer  {tokenizer_manifest.digest(course)}"
    assert lines[2] == f"           vocab_size 4,096, eod '{EOT}' = id 256, normalization none"
    assert "dtype      uint16" in lines and "counts     2 sequences, 2 documents, " \
        f"{manifest['tokens']} tokens" in lines
    corpus = built.parent / "c.txt"
    assert lines[lines.index("corpus     1 file, 33 bytes") + 1] == f"           {corpus}  33 bytes  sha256 {sha256(corpus)}"
    assert f".bin       {manifest['bin']['bytes']:,} bytes  sha256 {sha256(bin_path(built))}" in lines
    assert lines[-1] == "d: the dtype, the counts, the sizes and the sha256 of .bin and .idx match the manifest"
    quick = run_cli("verify", "--no-checksums", "d", cwd=built.parent)
    assert quick.returncode == 0 and quick.stdout.splitlines()[-1] == (
        "d: the dtype, the counts and the sizes match the manifest (checksums not read: --no-checksums)")


def test_cli_verify_exits_with_1_and_the_reason_when_a_byte_changed(built):
    pair.record_path(built).unlink()  # so that only the manifest can tell
    raw = bytearray(bin_path(built).read_bytes())
    raw[3] ^= 0x10
    bin_path(built).write_bytes(bytes(raw))
    run = run_cli("verify", "d", cwd=built.parent)
    assert run.returncode == 1 and run.stdout.startswith("format     tutorial_lib dataset manifest")
    manifest = json.loads(dataset_manifest.manifest_path(built).read_text())
    assert run.stderr.strip().splitlines()[-1] == (
        f"tutorial-megatron: error: d.bin: sha256 {sha256(bin_path(built))}, but the manifest says "
        f"{manifest['bin']['sha256']}: the file changed after it was written (a flipped bit, an edit in place); "
        "build it again")
    assert run_cli("verify", "--no-checksums", "d", cwd=built.parent).returncode == 0  # only the checksum sees it


@pytest.mark.parametrize("args, code, message", [
    (["verify", "nothing"], 2, "no dataset at nothing"),
    (["verify"], 2, "the following arguments are required: PREFIX"),
    (["verify", str(data.DATA_DIR / "megatron" / "tinystories_gpt2_text_document")], 1,
     "has no manifest"),
])
def test_cli_verify_bad_usage_and_datasets_without_a_manifest(tmp_path, args, code, message):
    run = run_cli(*args, cwd=tmp_path)
    assert run.returncode == code and message in run.stderr and run.stdout == ""


def test_cli_verify_of_a_dataset_missing_a_file_is_a_bad_dataset(built):
    bin_path(built).unlink()
    run = run_cli("verify", "d", cwd=built.parent)
    assert run.returncode == 1 and "has no token file beside it" in run.stderr


def test_verify_stopped_by_ctrl_c_says_so(built, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(dataset_manifest, "file_checksum", interrupted)
    assert cli.main(["verify", str(built)]) == 128 + signal.SIGINT
    assert capsys.readouterr().err == "tutorial-megatron: interrupted; not verified\n"
