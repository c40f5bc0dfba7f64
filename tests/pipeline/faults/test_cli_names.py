"""Output names: a prefix that names no file (`--output .` wrote hidden `..bin`, `..idx`, ... and exited 0), and
names near the file system's limit (a legal final name whose temporary name, 48 bytes longer, failed with
`OSError: [Errno 36]` naming a file the user never chose). A prefix must name files, its final names must fit
(checked before any work, naming the argument), and a temporary name is never longer than its target's name or
TEMPORARY_FLOOR bytes."""

import os
import re
from pathlib import Path

import pytest

from tutorial_lib import data
from tutorial_pipeline import cli, files
from tutorial_pipeline.dataset import CheckedDataset, check_prefix, write_dataset
from tutorial_pipeline.files import AtomicFile, remove_stale_temporaries, temporary_name, write_atomically

LIMIT = files.name_limit(Path("."))


@pytest.fixture
def corpus(tmp_path, monkeypatch, gpt2):
    """A two-line corpus in tmp_path, the working directory; the CLI's tokenizer is the session's GPT-2."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "load_tokenizer", lambda name: gpt2)
    (tmp_path / "c.txt").write_text("one\ntwo\n", encoding="utf-8")
    return tmp_path


def build(*output):
    return cli.main(["build", "--tokenizer", "gpt2", "--quiet", "--output", *output, "c.txt"])


@pytest.mark.parametrize("output, why", [
    (".", "its last part '.' names a directory"),
    ("..", "its last part '..' names a directory"),
    ("sub/.", "its last part '.' names a directory"),
    ("sub/", "it ends with a path separator"),
    ("./", "it ends with a path separator"),
    (".hidden", "its last part '.hidden' starts with '.'"),
    ("sub/.d", "its last part '.d' starts with '.'"),
    ("", "it is empty"),
])
def test_an_output_that_names_no_file_is_bad_usage(corpus, capsys, output, why):
    (corpus / "sub").mkdir()
    with pytest.raises(SystemExit) as e:
        build(output)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "usage: tutorial-megatron build" in err
    assert f"argument --output: expected --output DIR/NAME, e.g. out/tinystories" in err and why in err
    assert sorted(os.listdir(corpus)) == ["c.txt", "sub"] and os.listdir(corpus / "sub") == []


def test_a_name_too_long_for_the_file_system_is_bad_usage_before_any_work(corpus, capsys, monkeypatch):
    monkeypatch.setattr(cli, "load_tokenizer", lambda name: pytest.fail("the tokenizer was loaded"))
    name = "x" * (LIMIT - len(".bin"))  # .bin and .idx would fit; .manifest.json does not
    with pytest.raises(SystemExit) as e:
        build(name)
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument --output: expected --output DIR/NAME" in err
    assert f"'{name}.manifest.json' is {LIMIT + 10} bytes long" in err and f"at most {LIMIT} bytes" in err
    assert os.listdir(corpus) == ["c.txt"]


def test_the_longest_name_that_fits_builds_and_leaves_no_temporary_file(corpus, capsys, gpt2):
    name = "y" * (LIMIT - len(".manifest.json"))  # its temporaries would be 48 bytes longer, unshortened
    assert build(name) == 0, capsys.readouterr().err
    assert sorted(os.listdir(corpus)) == sorted(["c.txt"] + [name + end for end in (
        ".bin", ".idx", ".manifest.json", ".pair.json")])
    assert [s.tolist() for s in CheckedDataset(corpus / name)] == [gpt2.encode(t) + [50256] for t in ("one", "two")]


def test_the_api_refuses_such_a_prefix_naming_its_argument(tmp_path):
    for prefix, why in ((f"{tmp_path}{os.sep}.", "names a directory"), (f"{tmp_path}{os.sep}", "path separator"),
                        (tmp_path / ("z" * LIMIT), f"at most {LIMIT} bytes")):
        with pytest.raises(ValueError, match=rf"prefix must be DIR/NAME, .*: .*{why}"):
            write_dataset(prefix, [[1]])
    assert os.listdir(tmp_path) == []
    assert check_prefix(tmp_path / ".hidden") == tmp_path / ".hidden"  # hidden on purpose: the API allows it


@pytest.mark.parametrize("length", [1, 77, 78, 128, 200, LIMIT])
@pytest.mark.parametrize("char", ["a", "汉"])
def test_a_temporary_name_is_never_longer_than_its_target_or_the_floor(tmp_path, length, char):
    name = char * max(1, length // len(char.encode()))
    own = files.name_length(name)
    tmp = temporary_name(tmp_path / name)
    assert files.name_length(tmp.name) <= max(own, files.TEMPORARY_FLOOR)
    assert tmp.parent == tmp_path and tmp.name.startswith("." + name[:20])


def test_a_long_targets_temporaries_are_distinct_and_still_found_when_stale(tmp_path):
    stem = "q" * (LIMIT - 20)
    first, second = tmp_path / f"{stem}.bin", tmp_path / f"{stem}.idx"
    assert files.temporary_tag(first.name) != files.temporary_tag(second.name)  # the cut ends differ: the hash
    out = AtomicFile(first)
    out.file.write(b"data")
    out.commit()
    assert first.read_bytes() == b"data"
    dead = re.sub(r"\.\d+-", ".999999999-", temporary_name(first).name, count=1)  # a writer that is gone
    (tmp_path / dead).write_bytes(b"")
    assert [p.name for p in remove_stale_temporaries(first)] == [dead]
    assert remove_stale_temporaries(second) == []


def test_write_atomically_writes_a_name_as_long_as_the_file_system_takes(tmp_path):
    path = tmp_path / ("w" * LIMIT)
    write_atomically(path, "text\n")
    assert os.listdir(tmp_path) == [path.name] and path.read_text() == "text\n"
    data.write_atomically(tmp_path / ("文" * (LIMIT // 3)), "中文\n")
    assert len(os.listdir(tmp_path)) == 2


def test_a_shard_directory_of_a_long_but_legal_prefix_can_be_made(tmp_path):
    """The Dask build's shard directory is named after the prefix too: shortened as the builder's
    temporary names are, and found again by the clean-up of a killed client's directories."""
    from tutorial_pipeline import distributed

    prefix = tmp_path / ("a" * 237)  # NAME.manifest.json is 255 bytes: legal
    made = distributed._shard_directory(prefix)
    assert made.is_dir() and len(os.fsencode(made.name)) <= 255
    made.rmdir()


def test_the_course_tools_write_a_legal_name_near_the_limit(tmp_path):
    from tutorial_course import workspace
    from tutorial_course.classroom import release

    name = "a" * 250 + ".json"
    workspace.write_atomically(tmp_path / name, b"{}")
    release.write_atomically(tmp_path / ("b" * 250 + ".txt"), b"x")  # what a release writes with
    assert sorted(p.name for p in tmp_path.iterdir()) == [name, "b" * 250 + ".txt"]
