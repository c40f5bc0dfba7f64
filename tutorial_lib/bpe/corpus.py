"""A training corpus as a stream of text, and the pre-tokens a trainer counts in it.

The trainers (`trainer`, `trainer_stages`) never see a file: they get how often each pre-token
occurs, from `count_pretokens`, over the texts `iter_texts` streams. A corpus is a path to a UTF-8
text file or the texts themselves (a list, or any iterable, of str; each may contain special
tokens).

- `iter_texts` reads a file in chunks (strict UTF-8, `data.read_utf8`) and cuts it only where the
  cut cannot change the pre-tokens, so that memory stays near one chunk for a file of any size;
- `count_pretokens` cuts out the special tokens, splits the rest with the pattern and counts the
  pieces, in this process (the production path's `train` module runs it on batches of texts in
  worker processes and adds the counts up: the same counts);
- `normalize_texts` normalizes them as a tokenizer with a normalization form will encode them;
- `corpus_digest` names the corpus in a tokenizer's manifest: "trained on exactly this";
- `WordCounts` turns a dict of word -> count (the classic BPE example) into the texts it stands for.
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
from tutorial_lib._checks import check_int, check_iterable, check_type
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


def iter_texts(texts_or_path: TextSource, special_tokens: Iterable[str] = (),
               chunk_size: int = CHUNK_SIZE, pattern: str = GPT2_PATTERN) -> Iterator[str]:
    """The corpus as a stream of str, checked.

    A list (or any iterable) of str is passed through, each item checked to be a str; a set is
    refused (it drops repeats); a dict of word -> count gives each word count times (`WordCounts`).
    A file is read `chunk_size` bytes at a time and cut only where the cut cannot change the
    training data (see `_last_safe_cut`): the pieces pre-tokenize with `pattern` exactly like the
    whole file would. `special_tokens` and `pattern` are needed for a file only, to find those safe
    cuts. Memory stays near `chunk_size` as long as safe cuts keep coming; a file without any (no
    special tokens, and paragraphs split only by blank lines, like Lu Xun) is held until its end.
    """
    special_tokens = check_special_tokens(special_tokens)
    chunk_size = check_int(chunk_size, "chunk_size", low=1, high=MAX_CHUNK_SIZE)
    compile_pattern(pattern)  # a bad pattern fails here, not after the file was read
    if isinstance(texts_or_path, (str, os.PathLike)):
        line_cut = _LINE_CUTS.get(PATTERNS.get(pattern, pattern), _LF_CUT)
        return _read_file(_existing_file(texts_or_path), special_tokens, chunk_size, line_cut)
    if isinstance(texts_or_path, Mapping):  # a dict gives its keys only: the counts would be lost
        return iter(WordCounts(texts_or_path))
    check_iterable(texts_or_path, "texts_or_path", "a path (str or pathlib.Path) to a UTF-8 text "
                   "file or an iterable of str", ordered=True)
    return _checked_texts(texts_or_path)


class WordCounts(Iterable[str]):
    """A dict of word -> count as the texts it stands for: each word, count times, in dict order.

    Lazy and read afresh on each pass (training reads its texts twice: for the corpus digest and
    for the counts). The counts may add up to MAX_TOTAL: each repeat is pre-tokenized like a
    text of its own, so time grows with the total.
    """

    MAX_TOTAL = 10**7

    def __init__(self, counts: Mapping) -> None:
        for word, count in counts.items():
            check_type(word, "a word (key) of texts_or_path", str, "a str")
            check_int(count, f"the count of {word!r} in texts_or_path", low=0)
        total = sum(counts.values())
        if total > self.MAX_TOTAL:
            raise ValueError(f"texts_or_path's counts add up to {total:,}, more than the "
                             f"{self.MAX_TOTAL:,} texts a word -> count dict may stand for; pass "
                             "the corpus itself (a file or a list of texts) instead")
        self._counts = dict(counts)

    def __iter__(self) -> Iterator[str]:
        return chain.from_iterable(repeat(word, n) for word, n in self._counts.items())


def normalize_texts(texts: Iterable[str], form: str, special_tokens: Iterable[str] = ()
                    ) -> Iterator[str]:
    """Each text in `form`, its special tokens kept as given: what a tokenizer with this form is
    trained on, so that training sees the text that `encode` will see.

    (One case stays apart: text that normalizes into a special token, such as full-width
    "＜|endoftext|＞" under NFKC, is cut out as that special token in training, while `encode`
    keeps it as ordinary text.)
    """
    apply = normalizer(form)
    for text in texts:
        if apply is None:
            yield text
        else:
            yield "".join(piece if special else apply(piece)
                          for piece, special in split_special(text, special_tokens))


def corpus_digest(texts_or_path: TextSource) -> str:
    """sha256 hex digest of a corpus, for a tokenizer's manifest: "trained on exactly this".

    A path hashes the file's bytes (`data.file_sha256`). An iterable of str hashes each text's UTF-8
    bytes behind its length, so the same sequence of texts always gives the same digest and moving a
    boundary between texts changes it.
    """
    if isinstance(texts_or_path, (str, os.PathLike)):
        return file_sha256(_existing_file(texts_or_path))
    digest = hashlib.sha256()
    for text in iter_texts(texts_or_path):
        data = _utf8(text)
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


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"texts_or_path holds {text[err.start]!r}, a lone surrogate that UTF-8 "
                         "cannot encode") from None


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


# Where a line break between two non-space characters may be cut, for each bundled pattern; (?r)
# searches from the end, so search() finds the last one. "x\n|y" suits all three. With "\r\n" they
# differ: GPT-4 and nanochat keep "\r\n" in one pre-token, while GPT-2 splits "x\r\ny" into "x",
# "\r", "\n", "y" but keeps "\r\n" whole at the end of a piece, so it is cut between the two:
# "x\r|\ny".
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

    Two kinds of cut are safe:

    - Right after a special token, since nothing is merged across one. The match must be settled:
      start at least `longest` characters before the end, or a longer special token could still grow
      out of it once more text arrives (with "<a>" and "<a>b", a buffer ending in "<a>" is not yet
      decided).
    - At a line break between two non-space characters, where `line_cut` puts it ("x\\n" | "y"; for
      "\\r\\n" see `_LINE_CUTS`). In the GPT-2, GPT-4 and nanochat patterns a pre-token can hold a
      line break only together with other whitespace or, in GPT-4/nanochat, after punctuation
      (".\\n"); it never reaches past the break into a non-space character, and what comes before
      "x\\n" does not look further than that. A break next to other whitespace is not safe: GPT-2
      splits "  \\nb" into "  " + "\\n" but a piece ending in "  \\n" keeps it whole; "\\r" is such
      whitespace, hence the cuts of their own for "\\r\\n". (A pattern of your own gets the "\\n"
      cut only; if it can join such lines, pass its text as a list.)

    Cutting at the last safe position keeps the pieces close to `chunk_size`; the tests check that a
    file read in tiny chunks pre-tokenizes exactly like the whole text.
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

    Text that the split pattern leaves out of every pre-token is a ValueError (see
    pretokenize.find_pretokens): dropped, it would be missing from the counts without a word.
    The counts keep the order in which each pre-token first occurs, so counting a corpus in parts
    and adding the parts' counts up in order gives the same Counter, order included: that is how
    the production path's `train.count_pretokens` counts in several processes.
    """
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
    return Counter({_utf8(word): n for word, n in counts.items()})
