"""Chapter 04: reference solutions, and the typical wrong answer each checker must reject."""

import numpy as np

from tutorial_lib.bpe import bpe_toy
from tutorial_lib.bpe.tokenizer import Tokenizer


def compression_curve(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                      sizes: list[int], held_out_texts: list[str]) -> list[float]:
    # Every size is a prefix of the one run: the 256 bytes and the special tokens, then k merges.
    base = len(vocab) - len(merges)
    total_bytes = sum(len(text.encode("utf-8")) for text in held_out_texts)
    curve = []
    for size in sizes:
        k = size - base
        later = {a + b for a, b in merges[k:]}
        small = Tokenizer({i: t for i, t in vocab.items() if t not in later}, merges[:k],
                          pattern="gpt4")
        tokens = sum(len(small.encode_ordinary(text)) for text in held_out_texts)
        curve.append(total_bytes / tokens)
    return curve


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


def _largest_for_every_size(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                            sizes: list[int], held_out_texts: list[str]) -> list[float]:
    # Encodes with the whole run at every size: the curve comes out flat.
    whole = Tokenizer(vocab, merges, pattern="gpt4")
    total_bytes = sum(len(text.encode("utf-8")) for text in held_out_texts)
    tokens = sum(len(whole.encode_ordinary(text)) for text in held_out_texts)
    return [total_bytes / tokens for _ in sizes]


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


def _curve_with(vocab, merges, sizes, texts, *, cut, measure, pattern="gpt4") -> list[float]:
    """The reference's loop with one step swapped: `cut(vocab, merges, size)` -> (vocab, merges) of
    the small tokenizer, `measure(texts, encode)` -> the number for one size."""
    curve = []
    for size in sizes:
        small = Tokenizer(*cut(vocab, merges, size), pattern=pattern)
        curve.append(measure(texts, small.encode_ordinary))
    return curve


def _prefix(vocab, merges, size):
    k = size - (len(vocab) - len(merges))
    return vocab, merges[:k]


def _bytes_over_tokens(texts, encode):
    return sum(len(t.encode("utf-8")) for t in texts) / sum(len(encode(t)) for t in texts)


def compression_curve_chars(vocab, merges, sizes, held_out_texts) -> list[float]:
    """Characters per token, not UTF-8 bytes: a Chinese character is 3 bytes."""
    return _curve_with(vocab, merges, sizes, held_out_texts, cut=_prefix, measure=lambda texts, enc:
                       sum(map(len, texts)) / sum(len(enc(t)) for t in texts))


def compression_curve_mean_of_texts(vocab, merges, sizes, held_out_texts) -> list[float]:
    """Averages the per-text ratios, so a short text weighs as much as a long one."""
    return _curve_with(vocab, merges, sizes, held_out_texts, cut=_prefix, measure=lambda texts, enc:
                       sum(len(t.encode("utf-8")) / len(enc(t)) for t in texts) / len(texts))


def compression_curve_by_id(vocab, merges, sizes, held_out_texts) -> list[float]:
    """Cuts the vocabulary at id 256 + k, the first_merges slip: where a special token sits at
    256, the last merge kept makes a token the cut dropped, and Tokenizer refuses it."""
    def cut(vocab, merges, size):
        k = size - (len(vocab) - len(merges))
        return {i: t for i, t in vocab.items() if i < 256 + k}, merges[:k]
    return _curve_with(vocab, merges, sizes, held_out_texts, cut=cut, measure=_bytes_over_tokens)


def compression_curve_k_from_256(vocab, merges, sizes, held_out_texts) -> list[float]:
    """Takes k = size - 256, forgetting that the special tokens are part of the size: one merge
    too many at every size when there is a special token."""
    return _curve_with(vocab, merges, sizes, held_out_texts, measure=_bytes_over_tokens,
                       cut=lambda vocab, merges, size: (vocab, merges[:size - 256]))


def compression_curve_gpt2_pattern(vocab, merges, sizes, held_out_texts) -> list[float]:
    """Leaves Tokenizer's default pre-tokenizer, GPT-2's, where the run was trained with GPT-4's."""
    return _curve_with(vocab, merges, sizes, held_out_texts, cut=_prefix,
                       measure=_bytes_over_tokens, pattern="gpt2")


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
    "compression_curve": _largest_for_every_size,
    "vocab_size": _straight_line,
    "first_merges": _first_entries,
    "embedding_bytes": _a_block_more,
    "utilization": _tokens_over_vocab,
}
