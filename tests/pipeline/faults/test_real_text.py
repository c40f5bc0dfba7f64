"""Root cause 7, the pipeline on real-world text: Windows line ends, a byte-order mark, millions of tiny
documents, a pre-token of megabytes, workers on a small corpus and the CLI's own hints must give the
documents, the memory, the speed and the messages a user expects."""

import subprocess
import sys

import pytest

from tutorial_lib import data
from tutorial_pipeline import local
from tutorial_lib.packing.megatron import IndexedDataset
from tutorial_pipeline.corpus_files import plain_text
from tutorial_pipeline.local import build
from tutorial_lib.bpe import formats

EOT = data.ENDOFTEXT



def documents(tokenizer, prefix):
    dataset = IndexedDataset(prefix)
    return [tokenizer.decode(dataset.document(i).tolist()[:-1]) for i in range(dataset.num_documents)]


UNIX = "first line\nsecond line\n\nthird paragraph\n\nfourth, 第四\n"


@pytest.mark.parametrize("name, raw", [
    ("CRLF", UNIX.replace("\n", "\r\n")),
    ("BOM", "\ufeff" + UNIX),
    ("BOM and CRLF", "\ufeff" + UNIX.replace("\n", "\r\n")),
])
@pytest.mark.parametrize("split", ["line", "blank", "third"])
def test_a_windows_file_gives_the_documents_of_the_same_text_saved_on_unix(gpt2, tmp_path, name, raw, split):
    (tmp_path / "unix.txt").write_bytes(UNIX.encode())
    (tmp_path / "other.txt").write_bytes(raw.encode())
    build(tmp_path / "unix.txt", gpt2, tmp_path / "unix", split=split, progress=False)
    build(tmp_path / "other.txt", gpt2, tmp_path / "other", split=split, progress=False)
    expected = documents(gpt2, tmp_path / "unix")
    assert documents(gpt2, tmp_path / "other") == expected
    assert not any("\r" in doc or "\ufeff" in doc for doc in expected)


@pytest.mark.parametrize("pieces, text", [
    (["a\r", "\nb"], "a\nb"),  # a CRLF cut between two reads
    (["a\r", "\r\n"], "a\r\n"),  # a lone CR stays, the CRLF after it becomes LF
    (["", "\ufeffa"], "a"),  # the first read gave nothing yet (a character cut in two)
    (["a\ufeff"], "a\ufeff"),  # a BOM inside the text is a character (ZWNBSP), kept
    (["x", "\ufeffy"], "x\ufeffy"),
    (["end\r"], "end\r"),  # a CR at the very end is kept
])
def test_plain_text_pieces(pieces, text):
    assert "".join(plain_text(pieces)) == text


def test_a_batch_holds_a_bounded_number_of_documents(gpt2, tmp_path, monkeypatch):
    """A million one-word lines used to make one batch of half a million documents, with several
    Python objects each (hundreds of MB); each document now counts DOC_CHARS more."""
    (tmp_path / "lines.txt").write_text("a\n" * 50_000, encoding="utf-8")
    sizes, encode_batch = [], local.encode_batch
    monkeypatch.setattr(local, "encode_batch", lambda *args: sizes.append(len(args[2])) or encode_batch(*args))
    summary = build(tmp_path / "lines.txt", gpt2, tmp_path / "lines", progress=False)
    assert summary.documents == sum(sizes) == 50_000
    assert max(sizes) <= local.BATCH_CHARS // local.DOC_CHARS + 1


MEMORY = r"""
import resource, sys
from tutorial_lib import data
from tutorial_pipeline import local
from tutorial_lib.bpe import formats
tokenizer = formats.from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
summary = local.build(sys.argv[1], tokenizer, "out", progress=False)
added = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(summary.tokens, added * (1 if sys.platform == "darwin" else 1024) // 2**20)  # macOS counts bytes
"""


@pytest.mark.parametrize("name, text, tokens", [
    ("lines", "ab\n" * 300_000, 600_000),  # 300,000 documents of one word
    ("pretoken", "ab" * 500_000 + "\n", None),  # one pre-token of a million bytes
])
def test_memory_stays_small_for_many_documents_or_one_huge_pre_token(gpt2, tmp_path, name, text, tokens):
    """Peak memory added by the build, in a process of its own. Before: ~250 MB for the lines and
    ~170 MB for the pre-token; the bound is generous, far below either."""
    (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", MEMORY, f"{name}.txt"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    count, added_mb = map(int, run.stdout.split())
    assert count == (tokens or len(gpt2.encode(text.strip())) + 1)
    assert added_mb < 60


def test_workers_start_only_for_a_corpus_big_enough_to_gain(trained, tmp_path, monkeypatch):
    """With `trained` (600 entries): each worker unpickles it in a fraction of GPT-2's time."""
    started = []
    map_in_workers = local.map_in_workers
    monkeypatch.setattr(local, "map_in_workers", lambda *a, **k: started.append(a[2]) or map_in_workers(*a, **k))
    small = build(data.corpus_path("tinystories"), trained, tmp_path / "small", split=EOT, workers=2,
                  progress=False)
    assert started == [] and small.documents == 1727  # 1.4 MB: encoded in this process
    assert small.workers == 1 and "1 encoding process)" in str(small)  # the summary says so
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", {"ours": data.corpus_path("tinystories").stat().st_size})
    big = build(data.corpus_path("tinystories"), trained, tmp_path / "big", split=EOT, workers=2,
                progress=False)
    assert started == [2] and big.workers == 2 and "2 encoding processes)" in str(big)
    assert (tmp_path / "small.bin").read_bytes() == (tmp_path / "big.bin").read_bytes()


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "tutorial_pipeline", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_help_says_when_workers_start(tmp_path):
    run = cli("build", "--help", cwd=tmp_path)
    assert "at most 256" in run.stdout and "encoded in one process" in " ".join(run.stdout.split())


def test_the_default_split_on_tinystories_tells_a_cli_user_the_cli_fix(tmp_path):
    run = cli("build", "--tokenizer", "gpt2", "--output", "out", "--quiet", data.corpus_path("tinystories"),
              cwd=tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "the special token '<|endoftext|>'" in last and "--split '<|endoftext|>'" in last
    assert "allowed_special" not in last  # the Python API's fix means nothing on the command line


@pytest.mark.parametrize("workers", ["2147483647", "9223372036854775808", str(10**30), "257"])
def test_absurd_worker_counts_are_bad_usage(tmp_path, workers):
    (tmp_path / "c.txt").write_text("text\n", encoding="utf-8")
    run = cli("build", "--tokenizer", "gpt2", "--output", "out", "--workers", workers, "c.txt", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"argument --workers: must be an int from 1 to 256, got '{workers}'" in run.stderr


@pytest.mark.parametrize("workers", [2**31 - 1, 2**63, 257])
def test_build_refuses_absurd_worker_counts(gpt2, tmp_path, workers):
    with pytest.raises(ValueError, match=r"workers must be an int in \[1, 256\]"):
        build(data.corpus_path("tinystories"), gpt2, tmp_path / "out", workers=workers, progress=False)
    assert list(tmp_path.iterdir()) == []
