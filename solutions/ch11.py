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


def viterbi(text: str, log_probs: dict[str, float]) -> list[str]:
    n = len(text)
    longest = max(len(piece) for piece in log_probs)
    best = [0.0] + [None] * n  # best[i]: the best score of a path through text[:i]
    back = [0] * (n + 1)  # back[i]: where the last piece of that path starts
    for end in range(1, n + 1):
        for start in range(max(0, end - longest), end):  # left to right
            piece = text[start:end]
            if best[start] is None or piece not in log_probs:
                continue
            score = best[start] + log_probs[piece]
            if best[end] is None or score > best[end]:  # strictly higher: ties keep the earlier
                best[end], back[end] = score, start
    pieces, end = [], n
    while end > 0:
        pieces.append(text[back[end]:end])
        end = back[end]
    return pieces[::-1]


def expected_counts(words: dict[str, int], log_probs: dict[str, float]) -> dict[str, float]:
    import math

    counts = {piece: 0.0 for piece in log_probs}
    longest = max(len(piece) for piece in log_probs)
    for word, n in words.items():
        size = len(word)
        edges = [(start, end) for start in range(size)
                 for end in range(start + 1, min(size, start + longest) + 1)
                 if word[start:end] in log_probs]
        # alpha[i]: log of the summed probability of all paths through word[:i]
        alpha = [0.0] + [-math.inf] * size
        for end in range(1, size + 1):
            terms = [alpha[s] + log_probs[word[s:e]] for s, e in edges if e == end]
            top = max(terms)
            alpha[end] = top + math.log(sum(math.exp(t - top) for t in terms))
        # beta[i]: log of the summed probability of all paths through word[i:]
        beta = [-math.inf] * size + [0.0]
        for start in range(size - 1, -1, -1):
            terms = [log_probs[word[s:e]] + beta[e] for s, e in edges if s == start]
            top = max(terms)
            beta[start] = top + math.log(sum(math.exp(t - top) for t in terms))
        total = alpha[size]
        for s, e in edges:  # how likely a path through the word uses this edge, times n
            piece = word[s:e]
            counts[piece] += n * math.exp(alpha[s] + log_probs[piece] + beta[e] - total)
    return counts


def prune_round(words: dict[str, int], log_probs: dict[str, float], vocab_size: int,
                shrinking_factor: float) -> dict[str, float]:
    import math

    longest = max(len(piece) for piece in log_probs)

    def best_path(text: str, banned: str = "") -> list[str]:
        """Exercise 1's Viterbi; `banned` may not be used (a piece's own second-best path)."""
        best = [0.0] + [None] * len(text)
        back = [0] * (len(text) + 1)
        for end in range(1, len(text) + 1):
            for start in range(max(0, end - longest), end):
                piece = text[start:end]
                if best[start] is None or piece not in log_probs or piece == banned:
                    continue
                score = best[start] + log_probs[piece]
                if best[end] is None or score > best[end]:
                    best[end], back[end] = score, start
        pieces, end = [], len(text)
        while end > 0:
            pieces.append(text[back[end]:end])
            end = back[end]
        return pieces[::-1]

    freq = dict.fromkeys(log_probs, 0)  # uses on the best paths, times the word's count
    users = dict.fromkeys(log_probs, 0)  # the counts of the words whose best path uses the piece
    for word, n in words.items():
        pieces = best_path(word)
        for piece in pieces:
            freq[piece] += n
        for piece in set(pieces):
            users[piece] += n
    total, n_words = sum(freq.values()), sum(words.values())
    loss = {}
    for piece in log_probs:
        if len(piece) == 1 or freq[piece] == 0:
            loss[piece] = 0.0  # a single character stays; an unused piece goes for free
            continue
        f, alt = freq[piece], best_path(piece, banned=piece)
        new_total = total + f * (len(alt) - 1)  # each use of the piece becomes len(alt) uses
        alt_log_prob = sum(math.log(freq[m] + f) - math.log(new_total) for m in alt)
        loss[piece] = users[piece] / n_words * (math.log(f) - math.log(total) - alt_log_prob)
    longer = sorted((p for p in log_probs if len(p) > 1),
                    key=lambda p: (freq[p] > 0, loss[p], p))  # the free ones first
    keep = max(vocab_size, int(len(log_probs) * shrinking_factor))
    return {piece: loss[piece] for piece in longer[:len(log_probs) - keep]}


def wordpiece_merges(word_counts: dict[str, int], k: int) -> list[tuple[str, str]]:
    words = [([w[0]] + ["##" + c for c in w[1:]], n) for w, n in word_counts.items()]
    merges = []
    while len(merges) < k:
        freq: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for symbols, n in words:
            for s in symbols:
                freq[s] = freq.get(s, 0) + n
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break  # every word is one piece
        a, b = min(pairs, key=lambda p: (-pairs[p] / (freq[p[0]] * freq[p[1]]), -pairs[p], p))
        merges.append((a, b))
        merged = []
        for symbols, n in words:  # left to right, the occurrences do not overlap
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (a, b):
                    out.append(a + b[2:])  # b starts with ##: h + ##u -> hu
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged.append((out, n))
        words = merged
    return merges


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


def _greedy_longest(text: str, log_probs: dict[str, float]) -> list[str]:
    """Takes the longest piece at each position, whatever the scores: 研究生 命, not 研究 生命."""
    longest = max(len(piece) for piece in log_probs)
    pieces, start = [], 0
    while start < len(text):
        for end in range(min(len(text), start + longest), start, -1):
            if text[start:end] in log_probs:
                break
        pieces.append(text[start:end])
        start = end
    return pieces


def _viterbi_counts(words: dict[str, int], log_probs: dict[str, float]) -> dict[str, float]:
    """Hard EM: counts only the pieces of each word's best path, not every path by its
    probability."""
    counts = dict.fromkeys(log_probs, 0.0)
    for word, n in words.items():
        for piece in viterbi(word, log_probs):
            counts[piece] += n
    return counts


def _by_count(word_counts: dict[str, int], k: int) -> list[tuple[str, str]]:
    """BPE's rule in WordPiece's loop: each step merges the most frequent pair."""
    return _merge_loop(word_counts, k, lambda pair, count, freq: (-count, pair))


def _merge_loop(word_counts: dict[str, int], k: int, rank) -> list[tuple[str, str]]:
    """The training loop with another ranking of pairs (the wrong answers' helper): rank(pair,
    count, freq) -> sort key, the smallest merged first."""
    words = [[w[0]] + [PREFIX + c for c in w[1:]] for w in word_counts]
    merges = []
    while len(merges) < k:
        freq: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for symbols, n in zip(words, word_counts.values()):
            for s in symbols:
                freq[s] = freq.get(s, 0) + n
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: rank(p, pairs[p], freq))
        merges.append(best)
        words = [_merge(w, best) for w in words]
    return merges


def _merge(symbols: list[str], pair: tuple[str, str]) -> list[str]:
    out, i = [], 0
    while i < len(symbols):
        if tuple(symbols[i:i + 2]) == pair:
            out.append(pair[0] + pair[1].removeprefix(PREFIX))
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def _ranked_by_probability(words: dict[str, int], log_probs: dict[str, float], vocab_size: int,
                           shrinking_factor: float) -> dict[str, float]:
    """Cuts the least probable longer pieces, whatever removing them costs."""
    loss = prune_round(words, log_probs, 1, 1e-9)  # every longer piece, with its loss
    keep = max(vocab_size, int(len(log_probs) * shrinking_factor))
    order = sorted(loss, key=lambda p: (log_probs[p], p))
    return {p: loss[p] for p in order[:len(log_probs) - keep]}


WRONG_ANSWERS = {
    "wordpiece_score": _most_frequent_pair,
    "encode_word": _shortest_match,
    "viterbi": _greedy_longest,
    "expected_counts": _viterbi_counts,
    "wordpiece_merges": _by_count,
    "prune_round": _ranked_by_probability,
}
