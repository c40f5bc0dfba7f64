"""A tiny causal self-attention in numpy: one head, enough to see what a mask does to the outputs.

    weights = softmax(Q K^T / sqrt(d) + bias),   bias = 0 where mask is True, -inf where False
    output  = weights V

`OneHead` (token + absolute position embedding) and `RopeHead` (rotary positions, as in Llama,
Qwen and nanochat) have random weights: no training is needed to check that a document packed into
a row gets exactly its outputs alone (`differences_from_alone`) under the document mask, with
restarting position ids for `OneHead` and without them for `RopeHead`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutorial_lib._check_data import check_dtype, check_int_rows
from tutorial_lib._checks import check_int, check_int_list, check_type, describe
from tutorial_lib._memory import check_cells
from tutorial_lib.packing.masks import PAD_DOC, as_doc_ids, causal_mask, runs


def attention_weights(q: np.ndarray, k: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """softmax(q k^T / sqrt(d)) over the keys the boolean `mask` allows; shape (..., L, L). A
    query whose mask row is all False gets zero weights, not the NaN of a softmax over only -inf."""
    q, k = _float(q, "q"), _float(k, "k")
    mask = check_dtype(check_type(mask, "mask", np.ndarray, "a numpy bool array"), "mask", "b",
                       "a bool array (True = may attend)")
    check_cells(_scores_shape(q, k, mask), np.result_type(q, k),
                f"q of shape {q.shape} and k of shape {k.shape}")
    scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    top = scores.max(axis=-1, keepdims=True, initial=-np.inf)  # -inf for a query with no keys
    exp = np.exp(scores - np.where(np.isfinite(top), top, 0.0))  # exp(-inf) = 0 on masked keys
    total = exp.sum(axis=-1, keepdims=True)
    return np.divide(exp, total, out=np.zeros_like(exp), where=total > 0)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The attention output, shape (..., L, d): each query's weighted mean of the values it sees."""
    k, v = _float(k, "k"), _float(v, "v")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"k and v must hold one row per key, got shapes {k.shape} and {v.shape}")
    return attention_weights(q, k, mask) @ v


def varlen_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                     cu_seqlens: np.ndarray) -> np.ndarray:
    """What a FlashAttention varlen kernel computes: causal attention inside each slice [cu[i],
    cu[i+1]) of the unpadded token sequence (shape (total, d)). `cu_seqlens` must cover it exactly
    (a real kernel given less would leave the last tokens unattended)."""
    q, k, v = _float(q, "q"), _float(k, "k"), _float(v, "v")
    if q.ndim != 2 or not q.shape[0] == k.shape[0] == v.shape[0]:
        raise ValueError(f"q, k and v must be (total, dim) arrays with the same total, got shapes "
                         f"{q.shape}, {k.shape} and {v.shape}")
    out = np.zeros_like(v)
    cu_seqlens = _cu_seqlens(cu_seqlens, q.shape[0])
    for start, end in zip(cu_seqlens[:-1], cu_seqlens[1:]):  # one document at a time
        part = slice(start, end)
        out[part] = attention(q[part], k[part], v[part], causal_mask(end - start))
    return out


def _scores_shape(q: np.ndarray, k: np.ndarray, mask: np.ndarray) -> tuple[int, ...]:
    """The shape (..., queries, keys) of q k^T, once q, k and mask are known to fit together."""
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same width (last dimension), got shapes {q.shape} "
                         f"and {k.shape}")
    square = (q.shape[-2], k.shape[-2])
    if mask.shape[-2:] != square:
        raise ValueError(f"mask must end in (queries, keys) = {square} for q of shape {q.shape} "
                         f"and k of shape {k.shape}, got shape {mask.shape}")
    try:
        return np.broadcast_shapes(q.shape[:-2], k.shape[:-2], mask.shape[:-2]) + square
    except ValueError:
        raise ValueError(f"q, k and mask must have batch dimensions that broadcast together, got "
                         f"shapes {q.shape}, {k.shape} and {mask.shape}") from None


def _cu_seqlens(cu_seqlens: object, total: int) -> list[int]:
    """`cu_seqlens` as a list if its slices cover 0..total in order, else a ValueError."""
    cu = check_int_list(cu_seqlens, "cu_seqlens", low=0)
    if not cu or cu[0] != 0 or cu[-1] != total:
        raise ValueError(f"cu_seqlens must start at 0 and end at {total}, the number of tokens "
                         f"in q, got {describe(cu)}")
    drop = next((i for i in range(1, len(cu)) if cu[i] < cu[i - 1]), None)
    if drop is not None:
        raise ValueError(f"cu_seqlens must never decrease (document i is the slice cu_seqlens[i]:"
                         f"cu_seqlens[i + 1]), got cu_seqlens[{drop}] = {cu[drop]} after "
                         f"{cu[drop - 1]}")
    return cu


def _float(x: object, name: str) -> np.ndarray:
    x = check_type(x, name, np.ndarray, "a numpy array")
    if x.ndim < 2 or not np.issubdtype(x.dtype, np.floating):
        raise ValueError(f"{name} must be a float array of shape (..., length, dim), got dtype "
                         f"{x.dtype} and shape {x.shape}")
    return x


class _Head:
    """What both heads do with the q, k and v their `_qkv` makes of token and position ids."""

    def __call__(self, tokens: object, position_ids: object, mask: np.ndarray) -> np.ndarray:
        """Outputs (..., L, dim) for token ids and position ids of the same shape, under `mask`."""
        return attention(*self._qkv(tokens, position_ids), mask)

    def weights(self, tokens: object, position_ids: object, mask: np.ndarray) -> np.ndarray:
        """The attention weights (..., L, L) the head uses under `mask`."""
        q, k, _ = self._qkv(tokens, position_ids)
        return attention_weights(q, k, mask)


@dataclass(frozen=True)
class OneHead(_Head):
    """Token + position embedding, then one causal attention head; random weights from a seed."""
    token_embedding: np.ndarray  # (vocab_size, dim)
    position_embedding: np.ndarray  # (max_position, dim): a positional signal, so positions matter
    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray

    @classmethod
    def random(cls, vocab_size: int, dim: int = 16, max_position: int = 4096,
               seed: int = 0) -> OneHead:
        vocab_size, dim, max_position, rng = _random_head(vocab_size, dim, max_position, seed,
                                                          embeds_positions=True)
        return cls(rng.normal(size=(vocab_size, dim)), rng.normal(size=(max_position, dim)),
                   *(rng.normal(size=(dim, dim)) for _ in range(3)))

    def __repr__(self) -> str:  # the arrays would fill a checker's message
        return (f"OneHead(vocab_size={len(self.token_embedding)}, dim={self.wq.shape[0]}, "
                f"max_position={len(self.position_embedding)})")

    def _qkv(self, tokens: object, position_ids: object) -> tuple[np.ndarray, ...]:
        tokens, positions = _ids(tokens, position_ids, len(self.token_embedding),
                                 len(self.position_embedding))
        x = self.token_embedding[tokens] + self.position_embedding[positions]
        return x @ self.wq, x @ self.wk, x @ self.wv


@dataclass(frozen=True)
class RopeHead(_Head):
    """Token embedding, then one causal attention head whose q and k are rotated (RoPE)."""
    token_embedding: np.ndarray  # (vocab_size, dim)
    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    max_position: int = 4096  # position ids allowed: [0, max_position), as a model's context

    @classmethod
    def random(cls, vocab_size: int, dim: int = 16, max_position: int = 4096,
               seed: int = 0) -> RopeHead:
        vocab_size, dim, max_position, rng = _random_head(vocab_size, dim, max_position, seed,
                                                          embeds_positions=False)
        return cls(rng.normal(size=(vocab_size, dim)),
                   *(rng.normal(size=(dim, dim)) for _ in range(3)), max_position)

    def __repr__(self) -> str:
        return (f"RopeHead(vocab_size={len(self.token_embedding)}, dim={self.wq.shape[0]}, "
                f"max_position={self.max_position})")

    def _qkv(self, tokens: object, position_ids: object) -> tuple[np.ndarray, ...]:
        tokens, positions = _ids(tokens, position_ids, len(self.token_embedding),
                                 self.max_position)
        x = self.token_embedding[tokens]
        return rotate(x @ self.wq, positions), rotate(x @ self.wk, positions), x @ self.wv


def _random_head(vocab_size: int, dim: int, max_position: int, seed: int, *,
                 embeds_positions: bool) -> tuple[int, int, int, np.random.Generator]:
    """The checked sizes of a random head and the generator of its weights."""
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    dim = check_int(dim, "dim", low=1)
    max_position = check_int(max_position, "max_position", low=1)
    if embeds_positions:
        rows, sizes = max(vocab_size, max_position, dim), \
            f"vocab_size={vocab_size}, dim={dim} and max_position={max_position}"
    else:
        rows, sizes = max(vocab_size, dim), f"vocab_size={vocab_size} and dim={dim}"
    check_cells((rows, dim), np.float64, sizes)
    return vocab_size, dim, max_position, np.random.default_rng(check_int(seed, "seed", low=0))


def _ids(tokens: object, position_ids: object, vocab_size: int,
         max_position: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and position ids of one shape, each inside its table (numpy would wrap -1)."""
    tokens = check_int_rows(tokens, "tokens", low=0, high=vocab_size - 1)
    positions = check_int_rows(position_ids, "position_ids", low=0, high=max_position - 1)
    if tokens.shape != positions.shape:
        raise ValueError(f"tokens and position_ids must have the same shape, got "
                         f"{tokens.shape} and {positions.shape}")
    return tokens, positions


def rotate(x: np.ndarray, position_ids: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """RoPE: rotate the pairs (x[..., i], x[..., i + d/2]) of each row by position * base^(-2i/d)
    (Hugging Face's `rotate_half` pairing). A query rotated by m and a key rotated by n have a dot
    product that depends on m - n alone: shifting a whole document changes no score."""
    half = x.shape[-1] // 2
    angles = position_ids[..., None] * base ** (-np.arange(half) / half)  # (..., L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[..., :half], x[..., half:2 * half]
    return np.concatenate([first * cos - second * sin, first * sin + second * cos,
                           x[..., 2 * half:]], axis=-1)  # an odd last dimension is not rotated


def differences_from_alone(head: OneHead | RopeHead, tokens: object, doc_ids: object,
                           mask: np.ndarray, position_ids: object) -> list[float]:
    """For each document of one packed row, in order: the largest absolute difference between its
    outputs in the row (under `mask` and `position_ids`) and its outputs alone (its own tokens,
    positions 0, 1, ..., the causal mask): 0 up to rounding when packing is invisible to it."""
    check_type(head, "head", (OneHead, RopeHead), "a OneHead or a RopeHead")
    ids = as_doc_ids(doc_ids)
    tokens = check_int_rows(tokens, "tokens", ndim=(1,))
    if ids.ndim != 1 or ids.shape != tokens.shape:
        raise ValueError(f"doc_ids must be one row as long as tokens, got shapes {ids.shape} and "
                         f"{tokens.shape}")
    packed = head(tokens, position_ids, mask)
    found = runs(ids, "doc_ids")
    out = []
    for start, end, doc in zip(found.start.tolist(), found.end.tolist(), found.id.tolist()):
        if doc != PAD_DOC:  # run this document alone and compare
            alone = head(tokens[start:end], np.arange(end - start), causal_mask(end - start))
            out.append(float(np.abs(packed[start:end] - alone).max()))
    return out
