"""The training corpus: files read in safe pieces, texts checked, pre-tokens counted, the corpus
digest; and the production path's parallel training (`tutorial_pipeline.train`): the same counts and
merges in workers, started from a script, which runs again in every worker (spawn), and stopped by
Ctrl-C."""

import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.data import CORPORA, ENDOFTEXT, corpus_path, load_text
from tutorial_lib.bpe import corpus
from tutorial_lib.bpe.corpus import corpus_digest, count_pretokens, iter_texts
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, compile_pattern, split_special)
from tutorial_lib.bpe.trainer import train_bpe, train_bpe_naive
from tutorial_pipeline import train as parallel

# --- files and texts ------------------------------------------------------------------------------

@pytest.fixture
def small_chunks(monkeypatch):
    """Read files and batch texts in pieces of 5,000 characters, so that chunking really happens."""
    monkeypatch.setattr(corpus, "CHUNK_SIZE", 5_000)


def test_two_workers_give_the_same_result(small_chunks):
    path = corpus_path("tinystories")
    assert parallel.train_bpe(path, 700, [ENDOFTEXT], workers=2) == train_bpe(path, 700, [ENDOFTEXT])
    texts = [load_text("luxun")[:100_000]]
    assert parallel.train_bpe(texts, 400, workers=2) == train_bpe(texts, 400)
    assert parallel.train_bpe(texts, 300) == train_bpe(texts, 300)  # workers=1: this process


def test_workers_count_the_same_pretokens_in_the_same_order(small_chunks):
    texts = list(iter_texts(corpus_path("tinystories"), [ENDOFTEXT], corpus.CHUNK_SIZE))
    alone = count_pretokens(texts, [ENDOFTEXT])
    for workers in (1, 2):
        counted = parallel.count_pretokens(texts, [ENDOFTEXT], workers=workers)
        assert list(counted.items()) == list(alone.items())


def test_uncovered_text_is_refused_in_worker_processes_too():
    with pytest.raises(ValueError, match="leaves the character ','"):
        parallel.count_pretokens(["a b, c"], pattern=r"\w+| ", workers=2)


def test_workers_are_checked_before_any_text_is_read_and_the_lesson_has_none():
    for train in (parallel.train_bpe, parallel.count_pretokens):
        args = (["ok"], 300) if train is parallel.train_bpe else (["ok"],)
        with pytest.raises(ValueError, match=r"workers must be an int in \[1, 256\], got 0"):
            train(*args, workers=0)
        with pytest.raises(TypeError, match=r"workers must be an int in \[1, 256\], got float"):
            train(*args, workers=2.0)
    with pytest.raises(ValueError, match=r"workers must be an int in \[1, 256\], got 257"):
        parallel.train_bpe("no such file", 300, workers=257)  # refused before the path is looked at
    for train in (train_bpe, train_bpe_naive, count_pretokens):
        with pytest.raises(TypeError, match="workers"):
            train(["ok"], 300, workers=2)  # one process in the lesson: tutorial_pipeline.train


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_path_and_list_count_the_same_pretokens(name, small_chunks):
    chunks = list(iter_texts(corpus_path(name), [ENDOFTEXT], corpus.CHUNK_SIZE))
    assert len(chunks) > 1 or name == "luxun"  # Lu Xun has no single line breaks: no safe cut but the end
    assert count_pretokens(chunks, [ENDOFTEXT]) == count_pretokens([load_text(name)], [ENDOFTEXT])


@pytest.mark.parametrize("name", ["timemachine", "tinystories"])
def test_path_and_list_give_the_same_result(name, small_chunks):
    assert train_bpe(corpus_path(name), 600, [ENDOFTEXT]) == train_bpe([load_text(name)], 600, [ENDOFTEXT])


def pretokens(texts, special_tokens, pattern):
    findall = compile_pattern(pattern).findall
    return [token for text in texts for piece, special in split_special(text, special_tokens)
            for token in ([piece] if special else findall(piece))]


TRICKY = st.lists(st.sampled_from(["a", "b", "1", " ", "  ", "\n", "\n\n", "\r\n", "\r", "\t", ".", "。", "我", "'",
                                    "s", "\u3000", "<", "a>", "<a>", "<a>b", "é", "😀"]), max_size=60).map("".join)
# Windows line endings: lines of words and punctuation, broken by "\r\n" or, now and then, a lone "\r" or "\n".
CRLF_TEXT = st.lists(st.sampled_from(["a", "bc", "1", "22", " ", "  ", ".", ",", "'s", "我", "\u3000", "\t",
                                      "\r\n", "\r\n", "\r\n", "\r\n\r\n", " \r\n", "\r", "\n"]),
                     max_size=80).map("".join)
PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "nanochat": NANOCHAT_PATTERN}


def file_chunks(text, specials, chunk_size, pattern):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "corpus.txt")
        path.write_bytes(text.encode())
        return list(iter_texts(path, specials, chunk_size, pattern))


@settings(max_examples=300, deadline=None)
@given(text=TRICKY, chunk_size=st.integers(1, 12), specials=st.sampled_from([[], ["<a>"], ["<a>", "<a>b", "\n\n"]]),
       pattern=st.sampled_from(sorted(PATTERNS)))
def test_file_chunks_split_exactly_like_the_whole_file(text, chunk_size, specials, pattern):
    chunks = file_chunks(text, specials, chunk_size, pattern)
    assert "".join(chunks) == text
    assert pretokens(chunks, specials, PATTERNS[pattern]) == pretokens([text], specials, PATTERNS[pattern])


@settings(max_examples=300, deadline=None)
@given(text=CRLF_TEXT, chunk_size=st.integers(1, 12), pattern=st.sampled_from(sorted(PATTERNS)))
def test_crlf_file_chunks_split_exactly_like_the_whole_file(text, chunk_size, pattern):
    chunks = file_chunks(text, [], chunk_size, pattern)
    assert "".join(chunks) == text
    assert pretokens(chunks, [], PATTERNS[pattern]) == pretokens([text], [], PATTERNS[pattern])


@pytest.mark.parametrize("pattern", ["gpt2", GPT2_PATTERN, "gpt4", GPT4_PATTERN, "nanochat", NANOCHAT_PATTERN])
def test_a_file_with_windows_line_endings_is_read_in_bounded_pieces(pattern, tmp_path):
    text = load_text("timemachine").replace("\n", "\r\n")
    path = tmp_path / "crlf.txt"
    path.write_bytes(text.encode())
    chunks = list(iter_texts(path, (), 10_000, pattern))
    assert len(chunks) > 10 and max(map(len, chunks)) < 20_000
    assert "".join(chunks) == text
    assert pretokens(chunks, [], pattern) == pretokens([text], [], pattern)


def test_a_file_is_read_in_bounded_pieces():
    chunks = list(iter_texts(corpus_path("timemachine"), (), 10_000))
    assert len(chunks) > 10 and max(map(len, chunks)) < 20_000
    assert "".join(chunks) == load_text("timemachine")
    assert all(chunk[-1] == "\n" for chunk in chunks)  # cut at the start of a line


def test_corpus_digest():
    path = corpus_path("timemachine")
    assert corpus_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest() == CORPORA["timemachine"].sha256
    assert corpus_digest(str(path)) == corpus_digest(path)
    assert corpus_digest(["ab", "c"]) == corpus_digest(iter(["ab", "c"])) == corpus_digest(("ab", "c"))
    assert len({corpus_digest(t) for t in (["ab", "c"], ["a", "bc"], ["abc"], ["abc", ""], [])}) == 5


@pytest.mark.parametrize("data, offset, chunk_size", [
    (b"hello \xff world", 6, 1 << 20),
    (b"ab\xe4\xb8\xadc\xff", 6, 4),  # the bad byte comes after a character split across two reads
    (b"ab\xe4\xb8\xadc\xe4", 6, 3),  # a character cut off by the end of the file
    (b"\xe4\xb8x", 0, 1),
])
def test_invalid_utf8_names_the_file_and_the_byte_offset(tmp_path, data, offset, chunk_size):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    named = re.escape(f"{path} is not UTF-8 text: ") + f".*byte {offset} "  # the file, then the byte
    with pytest.raises(ValueError, match=named):
        list(iter_texts(path, (), chunk_size))
    if chunk_size > 100:
        with pytest.raises(ValueError, match=f"byte {offset} "):
            train_bpe(path, 300)


def test_iter_texts_checks_chunk_size():
    with pytest.raises(ValueError, match=r"chunk_size must be an int in \[1, 268435456\], got 0"):
        iter_texts(["a"], (), 0)
    with pytest.raises(ValueError, match=r"chunk_size must be an int in \[1, 268435456\], got 1000000000000"):
        iter_texts(corpus_path("timemachine"), (), 10**12)  # it would try to read that much at once
    with pytest.raises(TypeError, match=r"chunk_size must be an int in \[1, 268435456\], got str"):
        iter_texts(["a"], (), "1")
    assert list(iter_texts(corpus_path("timemachine"), (), corpus.MAX_CHUNK_SIZE)) == [load_text("timemachine")]


# --- workers started from a script ----------------------------------------------------------------

TRAIN = 'vocab, merges = train_bpe(["hello world " * 20000, "more text here"], 270, workers=2)  # a batch larger than a pipe'
IMPORT = "from tutorial_pipeline.train import train_bpe\n"
SCRIPTS = {
    "unguarded": f"{TRAIN}\nprint(len(merges))\n",
    "guarded": f'if __name__ == "__main__":\n    {TRAIN}\n    print(len(merges))\n',
}


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_a_script_without_the_main_guard_fails_fast_and_says_what_to_add(kind, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(IMPORT + SCRIPTS[kind], encoding="utf-8")
    # Before the fix the workers were restarted forever; the timeout only keeps such a bug from hanging the suite.
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    if kind == "guarded":
        assert (run.returncode, run.stdout) == (0, "14\n"), run.stderr
    else:
        assert run.returncode == 1 and run.stdout == ""
        last_line = run.stderr.strip().splitlines()[-1]
        assert last_line.startswith("RuntimeError: a worker process of pre-tokenization died")
        assert 'put that call under `if __name__ == "__main__":`' in last_line and "workers=1" in last_line


CTRL_C = '''
import signal

from tutorial_pipeline.train import train_bpe

# a process started with SIGINT ignored (a background job of a non-interactive shell) keeps
# ignoring it: give this one the terminal's Ctrl-C, whatever started the test
signal.signal(signal.SIGINT, signal.default_int_handler)


def texts():
    for i in range(400):
        if i == 12:
            print("started", flush=True)  # the workers run: the pool took its first batches
        yield "hello world, " * 100_000  # 1.3 million characters: one batch each


if __name__ == "__main__":
    train_bpe(texts(), 300, workers=2)
'''


def test_ctrl_c_stops_parallel_pre_tokenization_and_only_the_main_process_reports_it(tmp_path):
    """A terminal sends Ctrl-C to every process of the job; the workers ignore it (no traceback of
    their own, no pool left waiting), the main process stops after the batches being counted."""
    script = tmp_path / "train.py"
    script.write_text(CTRL_C, encoding="utf-8")
    run = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert run.stdout.readline() == "started\n"
    os.killpg(run.pid, signal.SIGINT)
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == -signal.SIGINT and stdout == ""
    assert stderr.count("Traceback") == 1 and stderr.strip().splitlines()[-1] == "KeyboardInterrupt"
