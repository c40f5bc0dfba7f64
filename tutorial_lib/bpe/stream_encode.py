"""Streaming encode: the ids of text that arrives in chunks, equal to `encode` of the whole text.

The end of what has arrived may still change once more arrives, and waits until it cannot: the
last (longest special token - 1) characters, which may start a special token; the raw text from the
last character where normalization starts fresh (`settled_length`: "e" | U+0301 composes to "é");
and the last two pre-tokens, which may grow (``'`` + ``l`` may become ``'ll``; two is enough for the
bundled patterns, which the tests try on adversarial chunkings).
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
    """Lazily yield the ids of ``"".join(chunks)``, the same as `tokenizer.encode` however the
    chunks are cut. The arguments are checked at the call, not at the first `next`."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    check_iterable(chunks, "chunks", "an iterable of str (a list, a file, ...)")
    batches = id_batches(tokenizer, iter(chunks), tokenizer.check_allowed(allowed_special))
    return (i for batch in batches for i in collect_ids(list, batch))


class StreamEncoder:
    """One stream's held text; `feed` takes a chunk, `finish` the end: each gives what is final."""

    def __init__(self, tokenizer: Tokenizer, allowed: frozenset[str]) -> None:
        self.tok, self.allowed, self.form = tokenizer, allowed, tokenizer.normalization
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
        if self.tok.compiled_specials is not None:
            for match in self.tok.compiled_specials.finditer(self.raw):
                if match.start() >= settled:
                    break
                self.norm += normalize(self.raw[start : match.start()], self.form)
                out.append(self._pretokens(0, match.start()))
                # the tokenizer's own step 1 gives the special's id, or its error if not allowed
                out.append(self.tok.id_tuples(match.group(), self.allowed,
                                               self.offset + match.start()))
                start = match.end()
        ordinary = self.raw[start:max(settled, start)]
        done = start + (len(ordinary) if final else settled_length(ordinary, self.form))
        self.norm += normalize(self.raw[start:done], self.form)
        out.append(self._pretokens(0 if final else 2, done))
        self.raw, self.offset = self.raw[done:], self.offset + done
        return out

    def _pretokens(self, hold_back: int, end: int) -> IdTuples:
        """The ids of the final pre-tokens of `norm`, which ends at raw[end] (all of them if
        `hold_back` is 0); the rest of `norm` stays."""
        at = self.offset + end - len(self.norm)  # exact without normalization; a hint with it
        pieces = find_pretokens(self.tok.compiled_pattern, self.norm, max(at, 0),
                                hold_back=hold_back)
        self.norm = self.norm[sum(map(len, pieces)):]
        return map(self.tok.piece_ids.__getitem__, pieces)


def id_batches(tokenizer: Tokenizer, chunks: Iterator[str], allowed: frozenset[str]
               ) -> Iterator[IdTuples]:
    """Lazily, the id tuples of ``"".join(chunks)``, a batch per chunk (and one at the end): what
    `encode_iterable` flattens. `allowed` is the checked set of allowed special tokens."""
    stream = StreamEncoder(tokenizer, allowed)
    for chunk in chunks:
        yield from stream.feed(chunk)
    yield from stream.finish()
