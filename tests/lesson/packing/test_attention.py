"""The numpy attention, and the proof that a document mask makes packing invisible to each document."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing import attention as at
from tutorial_lib.packing import masks as dm
from tutorial_lib.packing.masks import causal_mask

VOCAB = 50
HEAD = at.OneHead.random(VOCAB, dim=8, max_position=64, seed=1)


def pack(docs: list[np.ndarray], length: int) -> tuple[np.ndarray, np.ndarray]:
    """One row: the documents one after another, then padding (token 0, doc id PAD_DOC)."""
    ids = dm.doc_ids_from_lengths([len(d) for d in docs], length)
    tokens = np.zeros(length, dtype=np.int64)
    tokens[: sum(map(len, docs))] = np.concatenate(docs) if docs else []
    return tokens, ids


def alone(doc: np.ndarray) -> np.ndarray:
    return HEAD(doc, np.arange(len(doc)), causal_mask(len(doc)))


def test_attention_matches_a_hand_computed_softmax():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [1.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = at.attention(q, k, v, causal_mask(2))
    s = np.array([0.0, 1.0]) / np.sqrt(2)  # query 1's scores against keys 0 and 1
    w = np.exp(s) / np.exp(s).sum()
    assert out[0] == pytest.approx(v[0])
    assert out[1] == pytest.approx(w @ v)


def test_a_query_with_nothing_to_attend_to_outputs_zero_not_nan():
    x = np.ones((3, 2))
    mask = np.array([[True, False, False], [False, False, False], [True, True, True]])
    weights = at.attention_weights(x, x, mask)
    assert np.isfinite(weights).all() and weights[1].sum() == 0
    assert weights[[0, 2]].sum(-1) == pytest.approx([1, 1])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=5), st.integers(0, 4), st.integers(0, 2**16))
def test_packed_documents_equal_their_outputs_alone(lengths, padding, seed):
    rng = np.random.default_rng(seed)
    docs = [rng.integers(0, VOCAB, n) for n in lengths]
    tokens, ids = pack(docs, sum(lengths) + padding)
    packed = HEAD(tokens, dm.position_ids(ids), dm.document_mask(ids))
    v = dm.varlen(ids)
    for doc, start, end in zip(docs, v.cu_seqlens[:-1], v.cu_seqlens[1:]):
        assert np.abs(packed[start:end] - alone(doc)).max() <= 1e-6
    assert not packed[sum(lengths):].any()  # padding outputs 0


def test_without_the_mask_later_documents_differ():
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, VOCAB, n) for n in (6, 5, 7)]
    tokens, ids = pack(docs, 18)
    plain = HEAD(tokens, np.arange(18), causal_mask(18))
    restarted_only = HEAD(tokens, dm.position_ids(ids), causal_mask(18))
    wrong_positions = HEAD(tokens, np.arange(18), dm.document_mask(ids))
    assert np.abs(plain[:6] - alone(docs[0])).max() <= 1e-6  # the first document has nothing before it
    for out in (plain, restarted_only, wrong_positions):
        assert np.abs(out[6:11] - alone(docs[1])).max() > 0.1
        assert np.abs(out[11:] - alone(docs[2])).max() > 0.1


ROPE = at.RopeHead.random(VOCAB, dim=8, max_position=64, seed=1)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 20), st.integers(0, 2**16))
def test_rope_scores_depend_only_on_the_distance(m, n, shift, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    score = (at.rotate(q, np.array([m])) @ at.rotate(k, np.array([n])).T).item()
    shifted = (at.rotate(q, np.array([m + shift])) @ at.rotate(k, np.array([n + shift])).T).item()
    assert shifted == pytest.approx(score, abs=1e-9)
    assert np.linalg.norm(at.rotate(q, np.array([m]))) == pytest.approx(np.linalg.norm(q))  # a rotation


def test_rope_rotates_pairs_by_position_and_leaves_position_zero_alone():
    x = np.array([[1.0, 0.0, 0.0, 1.0]])  # pairs (x0, x2) = (1, 0) and (x1, x3) = (0, 1)
    assert at.rotate(x, np.array([0])) == pytest.approx(x)
    turned = at.rotate(x, np.array([1]), base=10000.0)  # pair 0 turns by 1 radian, pair 1 by 1/100
    assert turned[0, [0, 2]] == pytest.approx([np.cos(1), np.sin(1)])
    assert turned[0, [1, 3]] == pytest.approx([-np.sin(0.01), np.cos(0.01)])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=5), st.integers(0, 4), st.integers(0, 2**16))
def test_with_rope_the_document_mask_alone_makes_packing_invisible(lengths, padding, seed):
    rng = np.random.default_rng(seed)
    tokens, ids = pack([rng.integers(0, VOCAB, n) for n in lengths], sum(lengths) + padding)
    no_reset = np.arange(len(ids))  # positions 0..L-1 along the row, not restarted per document
    for positions in (no_reset, dm.position_ids(ids)):
        diffs = at.differences_from_alone(ROPE, tokens, ids, dm.document_mask(ids), positions)
        assert len(diffs) == len(lengths) and max(diffs) <= 1e-6


def test_with_rope_the_causal_mask_still_leaks_and_absolute_positions_still_need_the_reset():
    rng = np.random.default_rng(0)
    tokens, ids = pack([rng.integers(0, VOCAB, n) for n in (6, 5, 7)], 18)
    leaky = at.differences_from_alone(ROPE, tokens, ids, causal_mask(18), dm.position_ids(ids))
    shifted = at.differences_from_alone(HEAD, tokens, ids, dm.document_mask(ids), np.arange(18))
    for diffs in (leaky, shifted):
        assert diffs[0] <= 1e-6 and min(diffs[1:]) > 0.1


def test_varlen_attention_equals_the_document_mask_on_a_batch():
    rng = np.random.default_rng(3)
    ids = dm.doc_ids_from_lengths([[3, 4], [2], [5, 1, 1]], 8)
    x = rng.normal(size=(*ids.shape, 4))
    masked = at.attention(x, x, x, dm.document_mask(ids))
    v = dm.varlen(ids)
    flat = x.reshape(-1, 4)[v.indices]
    assert np.abs(at.varlen_attention(flat, flat, flat, v.cu_seqlens) - masked.reshape(-1, 4)[v.indices]).max() < 1e-12


@pytest.mark.parametrize("call, error", [
    (lambda: at.attention_weights(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))), TypeError),  # mask not bool
    (lambda: at.attention_weights(np.ones((2, 2), dtype=int), np.ones((2, 2)), causal_mask(2)), ValueError),
    (lambda: at.attention([[1.0]], np.ones((1, 1)), np.ones((1, 1)), causal_mask(1)), TypeError),
    (lambda: HEAD([VOCAB], [0], causal_mask(1)), ValueError),  # token id outside the table
    (lambda: HEAD([-1], [0], causal_mask(1)), ValueError),  # would silently wrap around
    (lambda: HEAD([1, 2], [0], causal_mask(2)), ValueError),
    (lambda: at.OneHead.random(0), ValueError),
    (lambda: ROPE([1], [64], causal_mask(1)), ValueError),  # position past max_position
    (lambda: at.differences_from_alone(ROPE, [1, 2], [0], causal_mask(2), [0, 1]), ValueError),
    (lambda: at.differences_from_alone("head", [1], [0], causal_mask(1), [0]), TypeError),
])
def test_bad_arguments(call, error):
    with pytest.raises(error):
        call()
