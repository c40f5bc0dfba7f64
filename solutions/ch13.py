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
    import unicodedata

    from tutorial_lib.contract import golden

    if not next(c for c in golden.CATEGORIES if c.name == category).belongs(x):
        return None  # not an input of this category
    form = tokenizer.normalization

    def N(text):  # exercise 1's normalization, in the tokenizer's own form
        if form == "none":
            return text
        if form == "NFKC_casefold":
            return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        return unicodedata.normalize(form, text)

    # N(x) piece by piece: from s, the shortest x[s:j] that normalizes apart from the rest;
    # every character of N(x[s:j]) came from x[s:j]
    normalized, came_from, s = "", [], 0
    while s < len(x):
        whole = N(x[s:])
        j = next(j for j in range(s + 1, len(x) + 1) if N(x[s:j]) + N(x[j:]) == whole)
        piece = N(x[s:j])
        normalized += piece
        came_from += [(s, j)] * len(piece)
        s = j
    ids = tokenizer.encode_ordinary(x)
    # exercise 2: each token's characters in N(x), which its bytes spell
    spans, _ = token_offsets(normalized, [tokenizer.token_bytes(i) for i in ids])
    return {"category": category, "input": x, "normalized": normalized, "ids": ids,
            "offsets": [[came_from[a][0], came_from[b - 1][1]] for a, b in spans],
            "decoded": tokenizer.decode(ids)}


def _offsets_in_the_normalized_text(tokenizer, category: str, x: str) -> dict | None:
    """Stops after exercise 2: each token's span in N(x), not carried back to x. Right wherever
    N(x) has one character for each of x's (ＡＢＣ under NFKC too), wrong once a character comes
    from two (o + U+0308 -> ö) or two from one (… -> ..., ß -> ss)."""
    vector = golden_vector(tokenizer, category, x)
    if vector is None:
        return None
    ids = vector["ids"]
    spans, _ = token_offsets(vector["normalized"], [tokenizer.token_bytes(i) for i in ids])
    return vector | {"offsets": [list(span) for span in spans]}


WRONG_ANSWERS = {
    "invariant_failures": _compared_with_the_raw_text,
    "token_offsets": _byte_offsets,
    "golden_vector": _offsets_in_the_normalized_text,
}
