"""--split as a shell passes it: `--split '\\n'` is a backslash and an n, which the corpus never holds, so the
whole file became one document without a word. The escapes \\n, \\t, \\r, \\0 and \\\\ are read as such (\\r\\n as
\\n, the text's own line end), any other backslash is bad usage, and a separator that cut no file in two is warned
about."""

import os

import pytest

from tutorial_pipeline import cli
from tutorial_pipeline.dataset import CheckedDataset

EOD = 50256


@pytest.fixture
def run(tmp_path, monkeypatch, gpt2):
    """Build `text` with `split` in tmp_path: (exit code, stderr, the documents decoded, without EOD)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "load_tokenizer", lambda name: gpt2)

    def run(capsys, split, *texts):
        names = []
        for i, text in enumerate(texts):
            (tmp_path / f"c{i}.txt").write_bytes(text.encode())
            names.append(f"c{i}.txt")
        code = cli.main(["build", "--tokenizer", "gpt2", "--quiet", "--output", "out", "--split", split, *names])
        err = capsys.readouterr().err
        docs = [gpt2.decode(ids[:-1]) for ids in CheckedDataset("out")] if code == 0 else None
        return code, err, docs

    return run


@pytest.mark.parametrize("split, text, documents", [
    (r"\n", "one\ntwo\n", ["one", "two"]),
    (r"\t", "a b\tc d\te", ["a b", "c d", "e"]),
    (r"\r\n", "one\r\ntwo\r\n", ["one", "two"]),  # the text's \r\n is read as \n: so is the separator's
    (r"\0", "one\0two", ["one", "two"]),
    (r"##\n", "one##\ntwo##\nthree", ["one", "two", "three"]),
    (r"\\n", "one\\ntwo", ["one", "two"]),  # \\ is a backslash: a literal backslash-n still works
    ("<|endoftext|>", "one<|endoftext|>two", ["one", "two"]),  # no backslash: as before
])
def test_the_escapes_typed_in_a_shell_are_read(run, capsys, split, text, documents):
    code, err, docs = run(capsys, split, text)
    assert (code, err, docs) == (0, "", documents)


@pytest.mark.parametrize("split, what", [(r"\x", r"the unknown escape \x"), (r"<\d>", r"the unknown escape \d"),
                                         ("ab\\", "a backslash at its end"), ("", "must not be empty")])
def test_an_unknown_escape_is_bad_usage(run, capsys, tmp_path, split, what):
    with pytest.raises(SystemExit) as e:
        run(capsys, split, "text\n")
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument --split: " in err and what in err
    if "escape" in what or "backslash" in what:
        assert r"the escapes are \n, \t, \r, \0, \\ (a backslash)" in err
    assert "out.bin" not in os.listdir(tmp_path)


def test_a_separator_that_never_occurs_is_warned_about(run, capsys):
    code, err, docs = run(capsys, "<sep>", "one\ntwo\n", "three\n")
    assert (code, docs) == (0, ["one\ntwo", "three"])
    assert err == ("tutorial-megatron: warning: --split '<sep>' gave 2 document(s) from 2 file(s): the separator "
                   r"was probably never found, so each file is one document; check SEP (in it \n, \t, \r, \0, \\ "
                   "(a backslash) are escapes)\n")


@pytest.mark.parametrize("split, texts", [("<sep>", ["a<sep>b"]), ("line", ["one line"]), ("blank", ["one"]),
                                          ("<sep>", [""])])
def test_no_warning_when_the_separator_cut_a_file_or_none_was_given(run, capsys, split, texts):
    assert run(capsys, split, *texts)[:2] == (0, "")


def test_help_lists_the_escapes(capsys):
    with pytest.raises(SystemExit):
        cli.main(["build", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert r"In SEP, \n, \t, \r, \0, \\ (a backslash) are read as escapes" in help_text
