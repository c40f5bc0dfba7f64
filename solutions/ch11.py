"""Chapter 11: reference solutions, and the typical wrong answer each checker must reject."""

PREFIX, UNK = "##", "[UNK]"


def _counts(word_counts: dict[str, int]) -> tuple[dict, dict]:
    """freq of each symbol and of each pair (the wrong answers' helper; the reference cells
    stand alone, as the classroom release copies them)."""
    freq: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for word, n in word_counts.items():
        symbols = [word[0]] + [PREFIX + c for c in word[1:]]
        for s in symbols:
            freq[s] = freq.get(s, 0) + n
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + n
    return freq, pairs


def wordpiece_score(word_counts: dict[str, int]) -> tuple[str, str]:
    freq: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for word, n in word_counts.items():
        symbols = [word[0]] + ["##" + c for c in word[1:]]
        for s in symbols:
            freq[s] = freq.get(s, 0) + n
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + n

    def key(p: tuple[str, str]) -> tuple:
        return (-pairs[p] / (freq[p[0]] * freq[p[1]]), -pairs[p], p)

    return min(pairs, key=key)


def encode_word(word: str, vocab: dict[str, int], max_input_chars_per_word: int = 100
                ) -> list[str]:
    if len(word) > max_input_chars_per_word:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces


def _most_frequent_pair(word_counts: dict[str, int]) -> tuple[str, str]:
    """BPE's rule, not WordPiece's: the most frequent pair, the parts' frequencies ignored."""
    _, pairs = _counts(word_counts)
    return min(pairs, key=lambda p: (-pairs[p], p))


def _shortest_match(word: str, vocab: dict[str, int], max_input_chars_per_word: int = 100
                    ) -> list[str]:
    """Takes the first piece that fits from the short end: u ##n ##a ... instead of unaff ##able."""
    if len(word) > max_input_chars_per_word:
        return [UNK]
    pieces, start = [], 0
    while start < len(word):
        for end in range(start + 1, len(word) + 1):
            piece = word[start:end] if start == 0 else PREFIX + word[start:end]
            if piece in vocab:
                break
        else:
            return [UNK]
        pieces.append(piece)
        start = end
    return pieces


WRONG_ANSWERS = {
    "wordpiece_score": _most_frequent_pair,
    "encode_word": _shortest_match,
}
