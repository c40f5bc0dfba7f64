"""What a vocabulary costs a model: one row of d numbers per token id in the input embedding, one
more in the output layer unless the two are tied, the rows padded to a multiple that matrix
multiplications like. Chapter 04 weighs this against what a larger vocabulary buys."""

from __future__ import annotations

from tutorial_lib._check_data import check_bool, check_number
from tutorial_lib._checks import check_int


def padded_vocab_size(vocab_size: int, multiple: int = 1) -> int:
    """`vocab_size` rounded up to a multiple of `multiple`: the rows a training stack allocates.

    Matrix multiplications run fastest on multiples of 64 or 128 (nanoGPT pads GPT-2's 50257 to
    50304; Megatron-LM to `--make-vocab-size-divisible-by` times the tensor-parallel size)."""
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    multiple = check_int(multiple, "multiple", low=1)
    return -(-vocab_size // multiple) * multiple


def embedding_params(vocab_size: int, d_model: int, tied: bool = True, multiple: int = 1) -> int:
    """Parameters indexed by token id: the V x d input embedding, plus the d x V output layer if
    untied, with V padded to `multiple` (`padded_vocab_size`)."""
    rows = padded_vocab_size(vocab_size, multiple)
    d_model = check_int(d_model, "d_model", low=1)
    return rows * d_model * (1 if check_bool(tied, "tied") else 2)


def embedding_bytes(vocab_size: int, d_model: int, tied: bool = True,
                    bytes_per_param: int = 2, multiple: int = 1) -> int:
    """Memory of `embedding_params` at `bytes_per_param` bytes each (2 for bf16, 4 for fp32)."""
    params = embedding_params(vocab_size, d_model, tied, multiple)
    return params * check_int(bytes_per_param, "bytes_per_param", low=1)


def embedding_share(vocab_size: int, d_model: int, total_params: int | float,
                    tied: bool = True) -> float:
    """Share of a model's `total_params` (embeddings included) that `embedding_params` takes."""
    params = embedding_params(vocab_size, d_model, tied)
    total = check_number(total_params, "total_params", low=params)
    return params / total
