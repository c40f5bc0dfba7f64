"""Chapter 04: reference solutions, and the typical wrong answer each checker must reject."""

import numpy as np

from tutorial_lib.bpe import bpe_toy


def vocab_size(corpus: dict[str, int], num_merges: int) -> int:
    learned = bpe_toy.train(corpus, num_merges).merges
    return len(set("".join(corpus))) + 1 + len(learned)


def first_merges(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                 num_merges: int) -> dict[int, bytes]:
    # Everything but the tokens that merges k+1, k+2, ... made: the bytes, the special tokens and
    # the first k merges' tokens, with their ids.
    later = {a + b for a, b in merges[num_merges:]}
    return {i: token for i, token in vocab.items() if token not in later}


def embedding_bytes(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int,
                    multiple: int) -> int:
    rows = (vocab_size + multiple - 1) // multiple * multiple
    return rows * d_model * (1 if tied else 2) * bytes_per_param


def utilization(ids: list[int], vocab_size: int) -> float:
    return len(set(ids)) / vocab_size


def _straight_line(corpus: dict[str, int], num_merges: int) -> int:
    # Takes the number of merges asked for as the number learned: wrong once training runs out of
    # pairs.
    return len(set("".join(corpus))) + 1 + num_merges


def _first_entries(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                   num_merges: int) -> dict[int, bytes]:
    # Cuts the vocabulary at num_merges entries, forgetting the 256 bytes every size starts with.
    return {i: token for i, token in vocab.items() if i < num_merges}


def _a_block_more(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int,
                  multiple: int) -> int:
    # Pads with a whole extra block when the size is already a multiple (128256 -> 128384).
    rows = (vocab_size // multiple + 1) * multiple
    return rows * d_model * (1 if tied else 2) * bytes_per_param


def _tokens_over_vocab(ids: list[int], vocab_size: int) -> float:
    # Counts every occurrence, not every distinct id.
    return len(ids) / vocab_size


def vocab_size_without_eow(corpus: dict[str, int], num_merges: int) -> int:
    """Forgets the end-of-word marker </w>, which is a symbol of the vocabulary too."""
    return len(set("".join(corpus))) + len(bpe_toy.train(corpus, num_merges).merges)


def first_merges_by_id(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                       num_merges: int) -> dict[int, bytes]:
    """Keeps the ids below 256 + k: right without special tokens, wrong when they sit at 256."""
    return {i: token for i, token in vocab.items() if i < 256 + num_merges}


def first_merges_last_k(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                        num_merges: int) -> dict[int, bytes]:
    """Keeps the tokens of the last k merges, the rarest, instead of the first k."""
    made = {a + b for a, b in merges[len(merges) - num_merges:]}
    return {i: t for i, t in vocab.items() if len(t) == 1 or t in made}


def embedding_bytes_one_matrix(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int,
                               multiple: int) -> int:
    """Forgets the separate output layer of an untied model."""
    rows = (vocab_size + multiple - 1) // multiple * multiple
    return rows * d_model * bytes_per_param


def embedding_bytes_tied_twice(vocab_size: int, d_model: int, tied: bool,
                               bytes_per_param: int, multiple: int) -> int:
    """Counts the shared matrix twice when tied and once when untied: the two cases swapped."""
    rows = (vocab_size + multiple - 1) // multiple * multiple
    return rows * d_model * (2 if tied else 1) * bytes_per_param


def embedding_bytes_unpadded(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int,
                             multiple: int) -> int:
    """Leaves the vocabulary unpadded: the rows a training stack adds take memory too."""
    return vocab_size * d_model * (1 if tied else 2) * bytes_per_param


def embedding_bytes_float(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int,
                          multiple: int) -> float:
    """Right value, wrong type: np.ceil gives a float, and so does the whole product."""
    rows = np.ceil(vocab_size / multiple) * multiple
    return rows * d_model * (1 if tied else 2) * bytes_per_param


def utilization_over_tokens(ids: list[int], vocab_size: int) -> float:
    """Divides the distinct ids by the number of tokens, not by the size of the vocabulary."""
    return len(set(ids)) / len(ids) if ids else 0.0


WRONG_ANSWERS = {
    "vocab_size": _straight_line,
    "first_merges": _first_entries,
    "embedding_bytes": _a_block_more,
    "utilization": _tokens_over_vocab,
}
