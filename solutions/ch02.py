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


def train(corpus: dict[str, int], num_merges: int) -> list[tuple[str, str]]:
    """The training loop with the chapter's tie rule, "first": `max` keeps the first of equal counts, and
    `count_pairs` lists the pairs in the order it meets them."""
    words = {tuple(word) + (EOW,): freq for word, freq in corpus.items()}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(words)
        if not counts:  # every word is one symbol: nothing left to merge
            break
        best = max(counts, key=counts.get)
        words = {merge_pair(symbols, best): freq for symbols, freq in words.items()}
        merges.append(best)
    return merges


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


def train_unweighted(corpus, num_merges):
    """Counts each pair once per distinct word, forgetting that the word occurs `freq` times."""
    return train({word: 1 for word in corpus}, num_merges)


def train_last_of_ties(corpus, num_merges):
    """Keeps the last of the tied pairs (`>=` in a hand-written max), so ties are broken against the rule."""
    words = {tuple(word) + (EOW,): freq for word, freq in corpus.items()}
    merges = []
    for _ in range(num_merges):
        best, best_count = None, 0
        for pair, count in count_pairs(words).items():
            if count >= best_count:
                best, best_count = pair, count
        if best is None:
            break
        words = {merge_pair(symbols, best): freq for symbols, freq in words.items()}
        merges.append(best)
    return merges


def train_without_stopping(corpus, num_merges):
    """Never checks whether any pair is left, so `max` of no pairs raises once every word is one symbol."""
    words = {tuple(word) + (EOW,): freq for word, freq in corpus.items()}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(words)
        best = max(counts, key=counts.get)
        words = {merge_pair(symbols, best): freq for symbols, freq in words.items()}
        merges.append(best)
    return merges


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
    "train": train_unweighted,
    "encode_word": encode_word_leftmost,
}
