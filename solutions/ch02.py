"""Chapter 02: reference solutions, and the typical wrong answer each checker must reject."""

EOW = "</w>"


def count_pairs(corpus: dict[tuple[str, ...], int]) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for symbols, freq in corpus.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_pair(symbols: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def encode_word(word: str, merges: list[tuple[str, str]]) -> list[str]:
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    symbols = tuple(word) + (EOW,)
    while True:
        candidates = [pair for pair in zip(symbols, symbols[1:]) if pair in ranks]
        if not candidates:
            return list(symbols)
        symbols = merge_pair(symbols, min(candidates, key=ranks.__getitem__))


# --- typical wrong answers ---------------------------------------------------------------------------------


def count_pairs_unweighted(corpus):
    """Counts each pair once per word, forgetting that the word occurs `freq` times."""
    counts = {}
    for symbols in corpus:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge_pair_overlapping(symbols, pair):
    """Forgets to skip the right half of a merged pair: "a a a" becomes "aa aa" instead of "aa a"."""
    out = []
    for i in range(len(symbols)):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
        elif not (i > 0 and (symbols[i - 1], symbols[i]) == pair):
            out.append(symbols[i])
    return tuple(out)


def merge_pair_by_string_replace(symbols, pair):
    """Joins with spaces and replaces text: ("ab", "c") wrongly matches the pair ("b", "c")."""
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split(" "))


def encode_word_leftmost(word, merges):
    """Merges the leftmost known pair first, so position in the word wins over rank."""
    symbols = tuple(word) + (EOW,)
    known = set(merges)
    while True:
        pairs = [pair for pair in zip(symbols, symbols[1:]) if pair in known]
        if not pairs:
            return list(symbols)
        symbols = merge_pair(symbols, pairs[0])


WRONG_ANSWERS = {
    "count_pairs": count_pairs_unweighted,
    "merge_pair": merge_pair_overlapping,
    "encode_word": encode_word_leftmost,
}
