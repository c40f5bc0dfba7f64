"""Chapter 13: reference solutions, and the typical wrong answer each checker must reject."""


def invariant_failures(tokenizer, texts: list[str], form: str) -> list[int]:
    import unicodedata

    def normalized(text):
        if form == "none":
            return text
        if form == "NFKC_casefold":  # casefolding can undo NFKC: normalize again after it
            return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        return unicodedata.normalize(form, text)

    return [i for i, text in enumerate(texts)
            if tokenizer.decode(tokenizer.encode_ordinary(text)) != normalized(text)]


def _compared_with_the_raw_text(tokenizer, texts: list[str], form: str) -> list[int]:
    """Checks decode(encode(x)) == x, whatever the form: every text the tokenizer's own
    normalization changes is reported, even when it is the form asked for."""
    return [i for i, text in enumerate(texts)
            if tokenizer.decode(tokenizer.encode_ordinary(text)) != text]


def token_offsets(text: str, pieces: list[bytes]) -> tuple[list[tuple[int, int]], list[bool]]:
    from bisect import bisect_right
    from itertools import accumulate

    char_ends = list(accumulate(len(ch.encode("utf-8")) for ch in text))  # in bytes
    spans, partial = [], []
    byte = 0  # where the current token's bytes start
    for piece in pieces:
        end = byte + len(piece)
        first = bisect_right(char_ends, byte)  # the characters holding its first and last byte
        last = bisect_right(char_ends, end - 1)
        spans.append((first, last + 1))
        starts_at = char_ends[first - 1] if first else 0  # where its first character starts
        partial.append(byte != starts_at or char_ends[last] != end)
        byte = end
    return spans, partial


def _byte_offsets(text: str, pieces: list[bytes]) -> tuple[list[tuple[int, int]], list[bool]]:
    """Spans in UTF-8 bytes, not in characters: right for ASCII only."""
    spans, byte = [], 0
    for piece in pieces:
        spans.append((byte, byte + len(piece)))
        byte += len(piece)
    return spans, token_offsets(text, pieces)[1]


def golden_vector(tokenizer, category: str, x: str) -> dict | None:
    from tutorial_lib.contract import golden, normalize, offsets

    belongs = next(c for c in golden.CATEGORIES if c.name == category).belongs
    if not belongs(x):
        return None  # not an input of this category
    ids = tokenizer.encode_ordinary(x)
    spans = offsets.encode_with_offsets(tokenizer, x).offsets  # in x, before normalization
    return {"category": category, "input": x,
            "normalized": normalize.normalize(x, tokenizer.normalization), "ids": ids,
            "offsets": [list(span) for span in spans], "decoded": tokenizer.decode(ids)}


def _input_as_normalized(tokenizer, category: str, x: str) -> dict | None:
    """Records the input itself as its normalized form: wrong wherever the tokenizer's form
    changes it (full-width forms under NFKC, capitals under NFKC_casefold)."""
    vector = golden_vector(tokenizer, category, x)
    return None if vector is None else vector | {"normalized": x}


WRONG_ANSWERS = {
    "invariant_failures": _compared_with_the_raw_text,
    "token_offsets": _byte_offsets,
    "golden_vector": _input_as_normalized,
}
