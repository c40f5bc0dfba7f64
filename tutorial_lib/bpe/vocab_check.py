"""The contract a Tokenizer's vocabulary and merges must keep, checked once when it is built: every
reader and the trainer hand their parts to `Tokenizer`, so files from anywhere keep the same rules.
"""

from __future__ import annotations

from tutorial_lib._checks import check_iterable, check_sequence, check_type


def check_vocab_and_merges(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]]
                           ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """The contract: distinct non-empty bytes per id, all 256 bytes, merges of earlier tokens."""
    check_type(vocab, "vocab", dict, "a dict[int, bytes]")
    owner: dict[bytes, int] = {}
    for i, token in vocab.items():
        if type(i) is not int or type(token) is not bytes:  # plain int -> bytes needs no check
            check_type(i, "a vocab id", int, "an int >= 0")
            check_type(token, f"vocab[{i}]", bytes, "non-empty bytes")
        if i < 0:
            raise ValueError(f"vocab ids must be ints >= 0, got {i}")
        if not token:
            raise ValueError(f"vocab[{i}] must be non-empty bytes, got b''")
        if owner.setdefault(token, i) != i:
            raise ValueError(f"vocab ids {owner[token]} and {i} both have the bytes {token!r}; "
                             "bytes must be unique")
    missing = [b for b in range(256) if bytes([b]) not in owner]
    if missing:
        raise ValueError(f"vocab lacks the single-byte tokens of {len(missing)} byte values "
                         f"(first: {missing[0]}); byte-level BPE needs all 256 so that every text "
                         "can be encoded")
    merges = check_iterable(merges, "merges", "a list of (bytes, bytes) pairs")
    merges = [m if type(m) is tuple  # a tuple is the usual case; anything else is checked
              else tuple(check_sequence(m, f"merges[{rank}]", "a pair of bytes"))
              for rank, m in enumerate(merges)]
    made = {bytes([b]) for b in range(256)}  # the tokens that bytes and the merges so far make
    seen: set[tuple[bytes, bytes]] = set()
    for rank, merge in enumerate(merges):
        if len(merge) != 2:
            raise ValueError(f"merges[{rank}] must be a pair of bytes, got {len(merge)} items: "
                             f"{merge!r}")
        for part in merge:
            if type(part) is not bytes:
                check_type(part, f"each part of merges[{rank}]", bytes, "bytes")
        unmade = [part for part in merge if part not in made]
        if unmade:
            raise ValueError(f"merges[{rank}] = {merge!r}: {unmade[0]!r} is neither a byte nor "
                             "made by an earlier merge")
        if merge in seen:
            raise ValueError(f"merges[{rank}] = {merge!r} repeats an earlier merge")
        if merge[0] + merge[1] not in owner:
            raise ValueError(f"merges[{rank}] = {merge!r} makes {merge[0] + merge[1]!r}, which is "
                             "not in the vocab")
        seen.add(merge)
        made.add(merge[0] + merge[1])
    return dict(vocab), merges

