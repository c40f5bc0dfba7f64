"""A training corpus as a stream of text, and the pre-tokens a trainer counts in it.

The trainers never see a file: they get how often each pre-token occurs (`count_pretokens`) in the
texts `iter_texts` streams from a UTF-8 file (in chunks, so memory stays near one) or a list.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import Union

import regex
from tqdm.auto import tqdm

from tutorial_lib._check_data import check_bool
from tutorial_lib._checks import check_int, check_iterable, check_type, check_utf8
from tutorial_lib.contract.normalize import normalizer
from tutorial_lib.data import file_sha256, read_utf8
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, PATTERNS,
                                          check_special_tokens, compile_pattern, find_pretokens,
                                          special_regex, split_special)

# A text source: a path to a UTF-8 text file, or the texts themselves (may hold special tokens).
TextSource = Union[str, os.PathLike, Iterable[str]]

CHUNK_SIZE = 1 << 20  # characters per piece of a file; also the work unit of pre-tokenization
# A piece is read, decoded and pre-tokenized whole: 256 Mi characters already take gigabytes.
MAX_CHUNK_SIZE = 1 << 28
MAX_WORD_COUNTS = 10**7  # the texts a dict of word -> count may stand for


def iter_texts(texts_or_path: TextSource, special_tokens: Iterable[str] = (),
               chunk_size: int = CHUNK_SIZE, pattern: str = GPT2_PATTERN) -> Iterator[str]:
    """The corpus as a stream of str, checked (a set is refused: it drops repeats; a dict of
    word -> count gives each word count times). A file is read `chunk_size` bytes at a time and cut
    only at `_last_safe_cut`, so the pieces pre-tokenize with `pattern` like the whole file; one
    without safe cuts (no special tokens, paragraphs split by blank lines) is held to its end.
    """
    special_tokens = check_special_tokens(special_tokens)
    chunk_size = check_int(chunk_size, "chunk_size", low=1, high=MAX_CHUNK_SIZE)
    compile_pattern(pattern)  # a bad pattern fails here, not after the file was read
    if isinstance(texts_or_path, (str, os.PathLike)):
        line_cut = _LINE_CUTS.get(PATTERNS.get(pattern, pattern), _LF_CUT)
        return _read_file(_existing_file(texts_or_path), special_tokens, chunk_size, line_cut)
    if isinstance(texts_or_path, Mapping):  # a dict gives its keys only: the counts would be lost
        return _repeat_words(texts_or_path)
    check_iterable(texts_or_path, "texts_or_path", "a path (str or pathlib.Path) to a UTF-8 text "
                   "file or an iterable of str", ordered=True)
    return _checked_texts(texts_or_path)


def _repeat_words(counts: Mapping) -> Iterator[str]:
    for word, count in counts.items():
        check_type(word, "a word (key) of texts_or_path", str, "a str")
        check_int(count, f"the count of {word!r} in texts_or_path", low=0)
    total = sum(counts.values())
    if total > MAX_WORD_COUNTS:  # each repeat is pre-tokenized: time grows with the total
        raise ValueError(f"texts_or_path's counts add up to {total:,}, more than the "
                         f"{MAX_WORD_COUNTS:,} texts a word -> count dict may stand for; pass "
                         "the corpus itself (a file or a list of texts) instead")
    return chain.from_iterable(repeat(word, n) for word, n in dict(counts).items())


def normalize_texts(texts: Iterable[str], form: str, special_tokens: Iterable[str] = ()
                    ) -> Iterator[str]:
    """Each text in `form`, its special tokens kept: training sees what `encode` will (but text that
    normalizes into a special token is cut out as one here, while `encode` keeps it as text)."""
    apply = normalizer(form)
    for text in texts:
        if apply is None:
            yield text
        else:
            yield "".join(piece if special else apply(piece)
                          for piece, special in split_special(text, special_tokens))


def corpus_digest(texts_or_path: TextSource) -> str:
    """sha256 hex digest of a corpus: of a file's bytes, or of each text's UTF-8 bytes behind its
    length (so moving a boundary between texts changes it)."""
    if isinstance(texts_or_path, (str, os.PathLike)):
        return file_sha256(_existing_file(texts_or_path))
    digest = hashlib.sha256()
    for text in iter_texts(texts_or_path):
        data = check_utf8(text, "a text of texts_or_path").encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _existing_file(path: str | os.PathLike) -> Path:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"texts_or_path must be an existing text file, got {str(path)!r} "
                                "(to train on text held in memory, pass a list of str)")
    return path


def _checked_texts(texts: Iterable[str]) -> Iterator[str]:
    for i, text in enumerate(texts):
        yield check_type(text, f"texts_or_path[{i}]", str, "a str")


def _read_file(path: Path, special_tokens: tuple[str, ...], chunk_size: int, line_cut: regex.Pattern
               ) -> Iterator[str]:
    specials = special_regex(special_tokens) if special_tokens else None
    longest = max(map(len, special_tokens), default=0)
    buffer = ""
    for piece in read_utf8(path, chunk_size):
        buffer += piece
        # Hand out all text up to the last safe cut once a chunk's worth has come together.
        if len(buffer) < chunk_size:
            continue
        if cut := _last_safe_cut(buffer, specials, longest, line_cut):
            yield buffer[:cut]
            buffer = buffer[cut:]
    if buffer:
        yield buffer


# Where a line break between two non-space characters may be cut ((?r): search() finds the last).
# GPT-4 and nanochat keep "\r\n" in one pre-token; GPT-2 splits "x\r\ny" into "x", "\r", "\n", "y"
# but keeps a final "\r\n" whole, so it is cut between the two: "x\r|\ny".
_LF_CUT = regex.compile(r"(?r)(?<=\S\n)(?=\S)")
_AFTER_CRLF_CUT = regex.compile(r"(?r)(?<=\S\r?\n)(?=\S)")
_LINE_CUTS = {
    GPT2_PATTERN: regex.compile(r"(?r)(?<=\S\n)(?=\S)|(?<=\S\r)(?=\n\S)"),
    GPT4_PATTERN: _AFTER_CRLF_CUT,
    NANOCHAT_PATTERN: _AFTER_CRLF_CUT,
}


def _last_safe_cut(text: str, specials: regex.Pattern | None, longest: int, line_cut: regex.Pattern
                   ) -> int:
    """The last position where `text` can be cut without changing how it splits; 0 if none yet.

    - Right after a special token, once settled: `longest` characters before the end, or a longer
      special token could still grow out of it ("<a>" and "<a>b": "...<a>" is not yet decided).
    - At a line break between two non-space characters, where `line_cut` puts it ("x\\n" | "y").
      In the bundled patterns a pre-token holds a line break only with other whitespace or after
      punctuation (".\\n"), never reaching past it into a non-space character. A break next to
      other whitespace is not safe (GPT-2 splits "  \\nb" into "  " + "\\n" but keeps a final
      "  \\n" whole); "\\r" is such whitespace, hence `_LINE_CUTS`. A pattern of your own gets the
      "\\n" cut only; if it can join such lines, pass its text as a list.
    """
    settled = len(text) - longest  # a special token starting after here may not be complete yet
    cut = 0
    if specials is not None:
        for match in specials.finditer(text):
            if match.start() > settled:
                break
            cut = match.end()
    line = line_cut.search(text, cut + 1, max(settled, 0))
    return line.start() if line else cut


def count_pretokens(texts: Iterable[str], special_tokens: Iterable[str] = (),
                    pattern: str = GPT2_PATTERN, *, progress: bool = False) -> Counter[bytes]:
    """How often each pre-token (as UTF-8 bytes) occurs; special tokens are cut out, never counted.
    The counts keep first-occurrence order, so a corpus counted in parts and added up in order gives
    the same Counter (how the production path counts in several processes)."""
    special_tokens = check_special_tokens(special_tokens)
    compiled = compile_pattern(pattern)  # a bad pattern fails here, before any text is read
    check_bool(progress, "progress")
    counts: Counter[str] = Counter()
    for text in tqdm(texts, desc="pre-tokenizing", unit="text", disable=not progress):
        offset = 0  # where `piece` starts in `text`: an uncovered character is named by its index
        # Special tokens are cut out; the ordinary text between them is split and counted.
        for piece, is_special in split_special(text, special_tokens):
            if not is_special:
                counts.update(find_pretokens(compiled, piece, offset))
            offset += len(piece)
    # Each distinct pre-token is encoded once, after counting, not once per occurrence.
    name = "a pre-token of texts_or_path"
    return Counter({check_utf8(word, name).encode("utf-8"): n for word, n in counts.items()})
