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


WRONG_ANSWERS = {
    "invariant_failures": _compared_with_the_raw_text,
}
