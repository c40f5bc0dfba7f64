"""Decoding ids as they arrive: whole characters out, the bytes of a cut character held back.

A byte-level BPE token is a run of bytes, not of characters: GPT-2 spells most Han characters
with two or three tokens, so a serving loop that prints `decode([i])` for each new id prints
U+FFFD for every piece of such a character. The fix: an incremental UTF-8 decoder, which gives out
only complete characters and holds the bytes of an unfinished one until a later token completes
it. `StreamDecoder.push` returns the text complete so far; `flush` ends the stream and applies
the error policy (`Tokenizer.decode`'s) to whatever is still held. For every chunking of the ids,
the pushes and the flush joined give exactly `tokenizer.decode(ids, errors)`.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from itertools import accumulate

from tutorial_lib._check_data import check_has
from tutorial_lib._checks import check_choice, check_int_list, check_str
from tutorial_lib.bpe.tokenizer import DECODE_ERRORS, Tokenizer

REPLACEMENT = "\ufffd"  # U+FFFD REPLACEMENT CHARACTER, what "replace" puts in


class StreamDecoder:
    """Decode a stream of ids chunk by chunk: `push(ids)` -> complete text, `flush()` at the end.

    `pending` is the bytes held back: the start of a character whose other bytes have not come
    yet. After `flush` the decoder is fresh again (a new stream can start).
    """

    def __init__(self, tokenizer: Tokenizer, errors: str = "replace") -> None:
        check_has(tokenizer, "tokenizer", ("decode_bytes", "vocab"), "a Tokenizer")
        self.tokenizer = tokenizer
        self.errors = check_choice(errors, "errors", DECODE_ERRORS)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors=errors)
        self._ids_seen = 0  # ids pushed so far: where the next push starts, for messages
        self._bytes_seen = 0  # bytes pushed so far

    @property
    def pending(self) -> bytes:
        """The bytes of an unfinished character, held until a later token completes it."""
        return self._decoder.getstate()[0]

    def push(self, ids: Iterable[int]) -> str:
        """The text completed by `ids` (perhaps "", when they only start a character)."""
        ids = check_int_list(ids, "ids")
        data = self.tokenizer.decode_bytes(ids)  # refuses an id that is not in the vocab
        held = len(self.pending)
        try:
            text = self._decoder.decode(data)
        except UnicodeDecodeError as e:  # strict only; e.object is the held bytes, then `data`
            raise self._error(e, ids, self._bytes_seen - held) from None
        self._ids_seen += len(ids)
        self._bytes_seen += len(data)
        return text

    def flush(self) -> str:
        """End the stream: the held bytes, by the policy ("replace": one U+FFFD), then reset."""
        held = self.pending
        try:
            return self._decoder.decode(b"", final=True)
        except UnicodeDecodeError as e:
            raise ValueError(f"the stream ended inside a character ({e.reason}): its first "
                             f"{len(held)} byte(s) {held!r} came with the last ids and nothing "
                             "completed them; errors='replace' would give U+FFFD") from None
        finally:
            self._decoder.reset()
            self._ids_seen = self._bytes_seen = 0

    def _error(self, e: UnicodeDecodeError, ids: list[int], start: int) -> ValueError:
        """A ValueError like Tokenizer.decode's: the stream byte and the id where UTF-8 breaks;
        the decoder is reset, since the stream cannot go on."""
        at = start + e.start  # the bad byte's position in the whole stream
        if at < self._bytes_seen:  # held from an earlier push: this push does not continue it
            where = f"held from an earlier id, which ids[0] = {ids[0]} does not continue"
        else:
            ends = accumulate(len(self.tokenizer.vocab[t]) for t in ids)
            k = next(k for k, end in enumerate(ends) if self._bytes_seen + end > at)
            where = f"in ids[{k}] = {ids[k]} of this push (id {self._ids_seen + k} of the stream)"
        self._decoder.reset()
        self._ids_seen = self._bytes_seen = 0
        return ValueError(f"ids are not valid UTF-8 ({e.reason}) at byte {at} of the stream, "
                          f"{where}; errors='replace' would put U+FFFD there")


def decode_stream(tokenizer: Tokenizer, chunks: Iterable[Iterable[int]],
                  errors: str = "replace") -> list[str]:
    """What a serving loop prints: the text each chunk of ids completes, then the flush."""
    decoder = StreamDecoder(tokenizer, errors)
    return [decoder.push(chunk) for chunk in chunks] + [decoder.flush()]


def fffd_counts(tokenizer: Tokenizer, text: str) -> dict[str, int]:
    """U+FFFD in the text of `encode_ordinary(text)` decoded three ways (errors="replace").

    "id_by_id": each id decoded alone and the pieces joined (the naive serving loop); "whole":
    all ids at once; "stream": a StreamDecoder fed one id at a time. "split_tokens" counts the
    ids whose bytes are not UTF-8 on their own (a piece of a character, or pieces of two).
    """
    check_str(text, "text")
    ids = tokenizer.encode_ordinary(text)
    pieces = [tokenizer.decode([i]) for i in ids]
    stream = "".join(decode_stream(tokenizer, ([i] for i in ids)))
    return {
        "characters": len(text),
        "tokens": len(ids),
        "split_tokens": sum(not _is_utf8(tokenizer.vocab[i]) for i in ids),
        "in_text": text.count(REPLACEMENT),
        "id_by_id": "".join(pieces).count(REPLACEMENT),
        "whole": tokenizer.decode(ids).count(REPLACEMENT),
        "stream": stream.count(REPLACEMENT),
    }


def cut_mid_character(tokenizer: Tokenizer, text: str) -> list[int]:
    """The ids of `text` up to the last point where they end inside a character: what a model
    stopped by a length limit can leave. ValueError when no token boundary falls in a character.
    """
    check_str(text, "text")
    ids = tokenizer.encode_ordinary(text)
    data = tokenizer.decode_bytes(ids)
    ends = list(accumulate(len(tokenizer.vocab[i]) for i in ids))
    # A token ends inside a character when the next byte continues one (0b10xxxxxx).
    for n in range(len(ids) - 1, 0, -1):
        if 0x80 <= data[ends[n - 1]] < 0xC0:
            return ids[:n]
    raise ValueError("text must have a token that ends inside a character (a byte-level split "
                     f"of a multi-byte character); none of its {len(ids)} tokens does")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
