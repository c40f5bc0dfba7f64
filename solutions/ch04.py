"""Chapter 04: reference solutions, and the typical wrong answer each checker must reject."""

from tutorial_lib.tokenization import bpe_toy


def vocab_size(corpus: dict[str, int], num_merges: int) -> int:
    learned = bpe_toy.train(corpus, num_merges).merges
    return len(set("".join(corpus))) + 1 + len(learned)


def embedding_bytes(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int) -> int:
    return vocab_size * d_model * (1 if tied else 2) * bytes_per_param


def utilization(ids: list[int], vocab_size: int) -> float:
    return len(set(ids)) / vocab_size


def _straight_line(corpus: dict[str, int], num_merges: int) -> int:
    # Takes the number of merges asked for as the number learned: wrong once training runs out of
    # pairs.
    return len(set("".join(corpus))) + 1 + num_merges


def _one_matrix(vocab_size: int, d_model: int, tied: bool, bytes_per_param: int) -> int:
    # Forgets the separate output layer of an untied model.
    return vocab_size * d_model * bytes_per_param


def _tokens_over_vocab(ids: list[int], vocab_size: int) -> float:
    # Counts every occurrence, not every distinct id.
    return len(ids) / vocab_size


def vocab_size_without_eow(corpus: dict[str, int], num_merges: int) -> int:
    """Forgets the end-of-word marker </w>, which is a symbol of the vocabulary too."""
    return len(set("".join(corpus))) + len(bpe_toy.train(corpus, num_merges).merges)


def embedding_bytes_tied_twice(vocab_size: int, d_model: int, tied: bool,
                               bytes_per_param: int) -> int:
    """Counts the shared matrix twice when tied and once when untied: the two cases swapped."""
    return vocab_size * d_model * (2 if tied else 1) * bytes_per_param


def utilization_over_tokens(ids: list[int], vocab_size: int) -> float:
    """Divides the distinct ids by the number of tokens, not by the size of the vocabulary."""
    return len(set(ids)) / len(ids) if ids else 0.0


WRONG_ANSWERS = {
    "vocab_size": _straight_line,
    "embedding_bytes": _one_matrix,
    "utilization": _tokens_over_vocab,
}
