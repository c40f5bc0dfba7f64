"""Corpus files -> documents, streamed: the same documents as splitting the whole text, for every way the
text can be cut into pieces, never more than one piece held, and each file hashed as it is read."""

import hashlib
from itertools import repeat

from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.corpus_files import iter_documents, read_documents, separator_of

EOT = data.ENDOFTEXT


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n<|>", max_size=60), st.sampled_from(["line", "blank", "<|>", "aa", "|", "\n \n"]),
       st.data())
def test_streamed_documents_equal_split_documents_on_the_whole_text(text, split, draw):
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    assert list(iter_documents(pieces, split)) == data.split_documents(text, separator_of(split))


def test_the_three_kinds_of_split():
    text = "one\ntwo\n\n\nthree\n  \nfour<|endoftext|>\nfive\n"
    assert list(iter_documents([text], "line")) == ["one", "two", "three", "four<|endoftext|>", "five"]
    assert list(iter_documents([text], "blank")) == ["one\ntwo", "three\n  \nfour<|endoftext|>\nfive"]
    assert list(iter_documents([text], EOT)) == ["one\ntwo\n\n\nthree\n  \nfour", "five"]


def test_documents_are_streamed_not_collected():
    endless = repeat("a line\n")  # never ends: only a lazy reader can give the first document
    assert next(iter_documents(endless, "line")) == "a line"


def test_each_file_is_hashed_as_it_is_read(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes("\ufeffone\r\ntwo\r\n".encode())  # the manifest hashes the bytes, BOM and CRLF included
    second.write_bytes("三\n".encode() * 1000)
    corpus, seen = [], []
    documents = read_documents([first, second], "line", corpus, seen.append)
    assert next(documents) == (str(first), 0, "one") and corpus == []  # a file is listed once it is read to its end
    assert len(list(documents)) == 1 + 1000
    assert corpus == [{"path": str(p), "bytes": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
                      for p in (first, second)]
    assert b"".join(seen) == first.read_bytes() + second.read_bytes()  # on_read saw every byte, once
