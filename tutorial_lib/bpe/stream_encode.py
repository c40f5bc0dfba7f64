"""Streaming encode: the ids of text that arrives in chunks, equal to `encode` of the whole text.

`encode_iterable(tokenizer, chunks)` takes a file, a list or a generator of any length and yields
ids as the text comes. Text at the end of what has arrived may still come out differently once more
arrives, in three ways, and each is held back until it cannot:

1. a special token may be cut in two: the last (longest special token - 1) characters wait;
2. normalization may act across the cut: "e" | U+0301 composes to "é", Hangul jamo join into a
   syllable, a full-width run under NFKC is fine but a combining mark after it is not. The raw text
   from the last character that `normalize_cuts.starts_fresh` waits (`settled_length`), so what is
   normalized is exactly what `encode` would normalize;
3. pre-tokens may still change: a letter or digit run can grow, ``\\s+(?!\\S)`` and ``\\s++$``
   depend on what follows, ``'l`` may become ``'ll``. So the last two pre-tokens of the normalized
   text wait (two, because ``'`` + ``l`` may still become ``'ll``; enough for the bundled patterns,
   which the tests try on adversarial chunkings).

Special tokens are matched in the raw text first, as `encode` does, and the ordinary text between
them is normalized on its own. Memory is bounded by the longest pre-token plus one chunk, not by
the input. A disallowed special token raises when it is reached, after the ids before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tutorial_lib._checks import check_iterable, check_str, check_type
from tutorial_lib.bpe.pretokenize import find_pretokens
from tutorial_lib.bpe.tokenizer import IdTuples, Tokenizer, collect_ids
from tutorial_lib.contract.normalize import normalize
from tutorial_lib.contract.normalize_cuts import settled_length


def encode_iterable(tokenizer: Tokenizer, chunks: Iterable[str],
                    allowed_special: Iterable[str] | str = frozenset()) -> Iterator[int]:
    """Lazily yield the ids of ``"".join(chunks)``, the same as `tokenizer.encode` (normalization
    included, however the chunks are cut), in memory bounded by the longest pre-token plus a chunk.

    The arguments are checked at the call, not at the first `next`.
    """
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    check_iterable(chunks, "chunks", "an iterable of str (a list, a file, ...)")
    batches = id_batches(tokenizer, iter(chunks), tokenizer._check_allowed(allowed_special))
    return (i for batch in batches for i in collect_ids(list, batch))


class StreamEncoder:
    """The state of one stream: raw text not yet normalized, and normalized text whose pre-tokens
    may still change. `feed` takes a chunk, `finish` the end; both give the id tuples now final."""

    def __init__(self, tokenizer: Tokenizer, allowed: frozenset[str]) -> None:
        self.tok, self.allowed = tokenizer, allowed
        self.hold = max(map(len, tokenizer.special_tokens), default=1) - 1
        self.raw = ""  # the text after `norm`, as given: not yet normalized
        self.norm = ""  # normalized text of the current stretch, its pre-tokens not yet final
        self.offset = 0  # where `raw` starts in the whole stream (for messages)

    def feed(self, chunk: str) -> list[IdTuples]:
        """The id tuples that `chunk` made final."""
        self.raw += check_str(chunk, "each chunk")
        return self._advance(final=False)

    def finish(self) -> list[IdTuples]:
        """The id tuples of everything still held: the stream has ended."""
        return self._advance(final=True)

    def _advance(self, final: bool) -> list[IdTuples]:
        out: list[IdTuples] = []
        settled = len(self.raw) - (0 if final else self.hold)  # specials starting before: complete
        start = 0  # where the current stretch of ordinary text starts in `raw`
        if self.tok._special_regex is not None:
            for match in self.tok._special_regex.finditer(self.raw):
                if match.start() >= settled:
                    break
                self.norm += self._normalize(self.raw[start : match.start()])
                out.append(self._pretokens(0, match.start()))
                # the tokenizer's own step 1 gives the special's id, or its error if not allowed
                out.append(self.tok._id_tuples(match.group(), self.allowed,
                                               self.offset + match.start()))
                start = match.end()
        ordinary = self.raw[start:max(settled, start)]
        done = start + (len(ordinary) if final else settled_length(ordinary, self.form))
        self.norm += self._normalize(self.raw[start:done])
        out.append(self._pretokens(0 if final else 2, done))
        self.raw, self.offset = self.raw[done:], self.offset + done
        return out

    @property
    def form(self) -> str:
        return self.tok.normalization

    def _normalize(self, text: str) -> str:
        return normalize(text, self.form)

    def _pretokens(self, hold_back: int, end: int) -> IdTuples:
        """The ids of the final pre-tokens of `norm`, which ends at raw[end] (all of them if
        `hold_back` is 0); the rest of `norm` stays."""
        at = self.offset + end - len(self.norm)  # exact without normalization; a hint with it
        pieces = find_pretokens(self.tok._regex, self.norm, max(at, 0), hold_back=hold_back)
        self.norm = self.norm[sum(map(len, pieces)):]
        return map(self.tok._pieces.__getitem__, pieces)


def id_batches(tokenizer: Tokenizer, chunks: Iterator[str], allowed: frozenset[str]
               ) -> Iterator[IdTuples]:
    """Lazily, the id tuples of ``"".join(chunks)``, a batch per chunk (and one at the end): what
    `encode_iterable` flattens. `allowed` is the checked set of allowed special tokens."""
    stream = StreamEncoder(tokenizer, allowed)
    for chunk in chunks:
        yield from stream.feed(chunk)
    yield from stream.finish()
