"""Chapter 05: reference solutions (a minbpe-style byte-level BPE), and the typical wrong answer each checker must
reject."""

from collections import Counter

from tutorial_lib.bpe.pretokenize import pretokenize


def _merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _train(text, vocab_size, pick):
    vocab = {i: bytes([i]) for i in range(256)}
    chunks = [list(piece.encode("utf-8")) for piece in pretokenize(text, "gpt4")]
    merges = []
    for new_id in range(256, vocab_size):
        counts = Counter(pair for chunk in chunks for pair in zip(chunk, chunk[1:]))
        if not counts:
            break
        best = pick(counts, vocab)
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        chunks = [_merge(chunk, best, new_id) for chunk in chunks]
        merges.append((vocab[best[0]], vocab[best[1]]))
    return merges


def train(text, vocab_size):
    """Ties go to the greatest (left bytes, right bytes): the rule the library's trainer uses."""
    return _train(text, vocab_size, lambda counts, vocab: max(counts, key=lambda p: (counts[p], vocab[p[0]], vocab[p[1]])))


def _bpe(piece_bytes, rank_of):
    """Merge the lowest-ranked adjacent pair until none has a rank; `rank_of(a, b)` is None for no merge."""
    parts = [bytes([b]) for b in piece_bytes]
    while len(parts) > 1:
        ranked = [(rank_of(a, b), i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if rank_of(a, b) is not None]
        if not ranked:
            break
        _, i = min(ranked)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts


def encode(text, merges):
    rank = {pair: k for k, pair in enumerate(merges)}
    id_of = {bytes([b]): b for b in range(256)} | {a + b: 256 + k for k, (a, b) in enumerate(merges)}
    return [id_of[part] for piece in pretokenize(text, "gpt4")
            for part in _bpe(piece.encode("utf-8"), lambda a, b: rank.get((a, b)))]


def _vocab(merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for k, (a, b) in enumerate(merges):
        vocab[256 + k] = a + b
    return vocab


def decode(ids, merges):
    vocab = _vocab(merges)
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


def encode_with_ranks(text, ranks):
    return [ranks[part] for piece in pretokenize(text, "gpt4")
            for part in _bpe(piece.encode("utf-8"), lambda a, b: ranks.get(a + b))]


# --- typical wrong answers ---------------------------------------------------------------------------------


def train_first_seen(text, vocab_size):
    """Breaks ties by whichever pair was counted first (dict order), so the result depends on the text's order."""
    return _train(text, vocab_size, lambda counts, vocab: max(counts, key=counts.get))


def encode_leftmost(text, merges):
    """Merges the leftmost pair that has any merge, instead of the lowest-ranked one."""
    known = set(merges)
    id_of = {bytes([b]): b for b in range(256)} | {a + b: 256 + k for k, (a, b) in enumerate(merges)}
    ids = []
    for piece in pretokenize(text, "gpt4"):
        parts = [bytes([b]) for b in piece.encode("utf-8")]
        while (i := next((i for i, pair in enumerate(zip(parts, parts[1:])) if pair in known), None)) is not None:
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids += [id_of[p] for p in parts]
    return ids


def encode_without_pretokenization(text, merges):
    """Runs BPE over the whole text's bytes: a learned pair that sits across a pre-token boundary
    (20 + 2 in 120|24, two spaces in x|␣|␣y) is merged, which the split forbids."""
    rank = {pair: k for k, pair in enumerate(merges)}
    id_of = {bytes([b]): b for b in range(256)} | {a + b: 256 + k for k, (a, b) in enumerate(merges)}
    return [id_of[part] for part in _bpe(text.encode("utf-8"), lambda a, b: rank.get((a, b)))]


def decode_token_by_token(ids, merges):
    """Decodes each token on its own: a character whose bytes span two tokens turns into two U+FFFD."""
    vocab = _vocab(merges)
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)


def encode_with_byte_values(text, ranks):
    """Uses a single byte's value as its id, as in minbpe's own vocabularies; cl100k permutes the byte tokens."""
    return [part[0] if len(part) == 1 else ranks[part] for piece in pretokenize(text, "gpt4")
            for part in _bpe(piece.encode("utf-8"), lambda a, b: ranks.get(a + b))]


WRONG_ANSWERS = {
    "train": train_first_seen,
    "encode": encode_leftmost,
    "decode": decode_token_by_token,
    "encode_with_ranks": encode_with_byte_values,
}
