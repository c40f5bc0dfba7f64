"""Chapter 12: reference solutions, and the typical wrong answer each checker must reject."""


def premium_summary(lang_counts: list[int], eng_counts: list[int]
                    ) -> tuple[float, float, float, float]:
    ratios = sorted(n / e for n, e in zip(lang_counts, eng_counts))
    n = len(ratios)
    half = n // 2
    median = ratios[half] if n % 2 else (ratios[half - 1] + ratios[half]) / 2
    pos = 0.9 * (n - 1)  # the 90th percentile between two ranks, as numpy interpolates it
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    p90 = ratios[lo] + (pos - lo) * (ratios[hi] - ratios[lo])
    return median, p90, ratios[-1], sum(lang_counts) / sum(eng_counts)


def bits_per_byte(log_probs: list[float], token_bytes: list[bytes]) -> float:
    import math

    total_bits = -sum(log_probs) / math.log(2)  # nats -> bits: 1 bit = ln 2 nats
    return total_bits / sum(len(token) for token in token_bytes)  # UTF-8 bytes, not tokens


def token_script(token: bytes) -> str:
    import unicodedata

    import regex

    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "partial"  # a piece of a character
    kinds = set()
    for ch in text:
        if ch.isspace():
            continue
        category = unicodedata.category(ch)
        if regex.match(r"\p{Han}", ch):
            kinds.add("han")
        elif category == "Nd":
            kinds.add("digit")
        elif category.startswith("L") and regex.match(r"\p{Latin}", ch):
            kinds.add("latin")
        elif category[0] in "PS":
            kinds.add("punctuation")
        else:
            kinds.add("other")
    if not kinds:
        return "whitespace"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _mean_of_ratios(lang_counts: list[int], eng_counts: list[int]
                    ) -> tuple[float, float, float, float]:
    """The mean of the per-sentence premiums for the corpus ratio: every sentence weighs the same,
    where a document's cost weighs its long sentences more."""
    median, p90, top, _ = premium_summary(lang_counts, eng_counts)
    ratios = [n / e for n, e in zip(lang_counts, eng_counts)]
    return median, p90, top, sum(ratios) / len(ratios)


def _nats_per_byte(log_probs: list[float], token_bytes: list[bytes]) -> float:
    """Forgets ln 2: nats per byte, not bits."""
    return -sum(log_probs) / sum(len(token) for token in token_bytes)


def _han_block_only(token: bytes) -> str:
    """Han as U+4E00-U+9FFF only (the common block): 〇 (Nl), 々 (Lm), ⺀ (So) and the extensions'
    characters fall through to the later rules."""
    import unicodedata

    import regex

    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "partial"
    kinds = set()
    for ch in text:
        if ch.isspace():
            continue
        category = unicodedata.category(ch)
        if "\u4e00" <= ch <= "\u9fff":
            kinds.add("han")
        elif category == "Nd":
            kinds.add("digit")
        elif category.startswith("L") and regex.match(r"\p{Latin}", ch):
            kinds.add("latin")
        else:
            kinds.add("punctuation" if category[0] in "PS" else "other")
    if not kinds:
        return "whitespace"
    return kinds.pop() if len(kinds) == 1 else "mixed"


WRONG_ANSWERS = {
    "premium_summary": _mean_of_ratios,
    "bits_per_byte": _nats_per_byte,
    "token_script": _han_block_only,
}
