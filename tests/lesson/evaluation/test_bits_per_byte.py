"""The n-gram model behind bits per byte: hand-computed Witten-Bell toys, a proper distribution over
the whole vocabulary, a naive reference, an exact sum in any order, and bad input."""

import math
from collections import defaultdict
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.text import measure
from tutorial_lib.evaluation.bits_per_byte import (Evaluation, NgramModel, encode_documents, evaluate_tokenizer, from_loss)

TOY = [[0, 1, 0, 1, 0]]  # V = 3: id 2 never occurs


def next_token_probs(model, context, ids=None):
    """P(w | context) for each w of `ids` (default: every id), read off `evaluate`: the loss of the
    last token of the document context + [w], one document per w."""
    ids = np.arange(model.vocab_size) if ids is None else np.asarray(ids)
    docs = np.empty((len(ids), len(context) + 1), np.int64)  # rows as arrays: checked fast
    docs[:, :-1], docs[:, -1] = context, ids
    nll = model.evaluate(list(docs), [1] * len(docs)).nll_bits[len(context)::len(context) + 1]
    return np.exp2(-nll)


# --- the smoothing formula by hand ---------------------------------------------------------------
# Unigram: N = 5 tokens, T = 2 types, c(0) = 3, c(1) = 2, c(2) = 0, so with the uniform 1/3 below:
#   P(0) = (3 + 2/3) / 7 = 11/21,  P(1) = (2 + 2/3) / 7 = 8/21,  P(2) = (2/3) / 7 = 2/21.
# Bigram contexts: start -> 0, 0 -> 1, 1 -> 0, 0 -> 1, 1 -> 0: c(0) = 2, T(0) = 1 (only 1 follows):
#   P(1 | 0) = (2 + 1 * 8/21) / 3 = 50/63,  P(0 | 0) = (11/21) / 3 = 11/63,  P(2 | 0) = 2/63;
#   P(0 | 1) = (2 + 11/21) / 3 = 53/63; after the start: c = 1, T = 1, P(0 | start) = (1 + 11/21)/2.
#   After 2 (never seen as a context): the unigram.
# Trigram: (0, 1) -> 0 twice: P(0 | 0 1) = (2 + 53/63) / 3 = 179/189.
HAND = [
    (1, [], [F(11, 21), F(8, 21), F(2, 21)]),
    (2, [0], [F(11, 63), F(50, 63), F(2, 63)]),
    (2, [2], [F(11, 21), F(8, 21), F(2, 21)]),
    (2, [], [(1 + F(11, 21)) / 2, F(8, 21) / 2, F(2, 21) / 2]),
    (3, [0, 1], [F(179, 189), (F(8, 21) / 3) / 3, (F(2, 21) / 3) / 3]),
]


@pytest.mark.parametrize("order, context, expected", HAND)
def test_hand_computed_witten_bell(order, context, expected):
    probs = next_token_probs(NgramModel.train(TOY, 3, order), context)
    assert probs.tolist() == pytest.approx([float(p) for p in expected], rel=1e-12)
    assert sum(expected) == 1


def test_evaluation_adds_the_hand_computed_losses():
    # Trigram on one document [0, 1]: P(0 | start start) = P(0 | start) at the bigram level mixed
    # once more: c(start start) = 1, T = 1, so (1 + (1 + 11/21)/2) / 2; then P(1 | start 0) =
    # (1 + P(1 | 0)) / 2 = (1 + 50/63) / 2.
    first = (1 + (1 + F(11, 21)) / 2) / 2
    second = (1 + F(50, 63)) / 2
    result = NgramModel.train(TOY, 3, 3).evaluate([[0, 1]], [5])
    bits = -math.log2(first) - math.log2(second)
    assert result.total_bits == pytest.approx(bits, rel=1e-12)
    assert result.bits_per_byte == pytest.approx(bits / 5, rel=1e-12)
    assert (result.tokens, result.bytes, result.documents) == (2, 5, 1)
    assert result.seen == (2, 2, 2)


# --- a naive reference: dicts of Fractions, straight from the formula ----------------------------


def naive_probs(docs, vocab_size, order, context, ids=None):
    """P(w | context) for each w of `ids` (default: every id). Each w's value is mixed from its own
    lower-order one alone, so asking for a few ids of a large vocabulary gives the same Fractions."""
    ids = range(vocab_size) if ids is None else list(ids)
    start = vocab_size
    counts = defaultdict(lambda: defaultdict(int))  # history tuple -> next id -> count
    for doc in docs:
        padded = [start] * (order - 1) + list(doc)
        for i, w in enumerate(doc):
            for k in range(order):
                counts[tuple(padded[i + order - 1 - k:i + order - 1])][w] += 1
    padded = [start] * (order - 1) + list(context)
    probs = [F(1, vocab_size)] * len(ids)
    for k in range(order):
        after = counts.get(tuple(padded[len(padded) - k:]), {})
        c, t = sum(after.values()), len(after)
        if c:
            probs = [(after.get(w, 0) + t * p) / (c + t) for w, p in zip(ids, probs)]
    return probs


corpora = st.integers(1, 6).flatmap(lambda v: st.tuples(
    st.just(v),
    st.lists(st.lists(st.integers(0, v - 1), max_size=8), min_size=1, max_size=5)
    .filter(lambda docs: any(docs)),
    st.lists(st.integers(0, v - 1), max_size=4),
    st.sampled_from([1, 2, 3])))


@settings(max_examples=150, deadline=None)
@given(corpora)
def test_distribution_sums_to_one_and_matches_the_naive_formula(corpus):
    vocab_size, docs, context, order = corpus
    probs = next_token_probs(NgramModel.train(docs, vocab_size, order), context)
    assert probs.shape == (vocab_size,)
    assert (probs > 0).all()  # every id of the vocabulary keeps some mass
    assert math.fsum(probs) == pytest.approx(1, abs=1e-12)
    assert probs.tolist() == pytest.approx(
        [float(p) for p in naive_probs(docs, vocab_size, order, context)], rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(corpora, st.lists(st.lists(st.integers(0, 5), max_size=6), min_size=1, max_size=4)
       .filter(lambda docs: any(docs)))
def test_evaluate_scores_each_token_with_next_token_probs(corpus, eval_docs):
    vocab_size, docs, _, order = corpus
    eval_docs = [[i % vocab_size for i in doc] for doc in eval_docs]
    model = NgramModel.train(docs, vocab_size, order)
    result = model.evaluate(eval_docs, [len(doc) + 1 for doc in eval_docs])
    expected = [-math.log2(next_token_probs(model, doc[:i], [w])[0])
                for doc in eval_docs for i, w in enumerate(doc)]
    assert result.nll_bits.tolist() == pytest.approx(expected, rel=1e-12)


def next_token_probs_after_one_history(model, context):
    """`next_token_probs` of every id, from one document instead of one per id: the model sees only the
    last order - 1 ids of `context`, so in the document h w0 h w1 h w2 ... (h those ids) each w follows h."""
    history = list(context)[len(context) - (model.order - 1):]
    assert len(history) == model.order - 1  # a shorter context holds the start state: one document per id
    doc = np.empty((model.vocab_size, len(history) + 1), np.int64)
    doc[:, :-1], doc[:, -1] = history, np.arange(model.vocab_size)
    nll = model.evaluate([doc.ravel()], [1]).nll_bits[len(history)::len(history) + 1]
    return np.exp2(-nll)


def test_real_vocabulary_matches_the_naive_formula_and_sums_to_one(cl100k_segmenter):
    """cl100k's 100k ids: packed keys far from the toy's, unseen ids and contexts."""
    docs = data.tinystories_documents()
    train, _ = encode_documents(cl100k_segmenter, docs[:3])
    held, sizes = encode_documents(cl100k_segmenter, docs[3:4])
    v = cl100k_segmenter.vocab_size
    model = NgramModel.train(train, v, 3)
    seen_context, unseen_context = train[0][:5], [v - 1, 0]  # v - 1: a special, never in text
    for context in ([], seen_context, unseen_context, held[0][:7]):
        tokens = sorted(set(held[0]) | set(train[0]))[:20]
        if context:
            probs = next_token_probs_after_one_history(model, context)
            # the same values as the documents context + [w], one per id
            assert probs[tokens].tolist() == pytest.approx(next_token_probs(model, context, tokens).tolist(),
                                                           rel=1e-12)
        else:
            probs = next_token_probs(model, context)
        assert probs.shape == (v,) and (probs > 0).all()
        assert math.fsum(probs) == pytest.approx(1, abs=1e-9)
        naive = naive_probs(train, v, 3, context, tokens)
        assert probs[tokens].tolist() == pytest.approx([float(p) for p in naive], rel=1e-10)
    result = model.evaluate(held, sizes)
    assert result.tokens == len(held[0]) and result.bytes == len(docs[3].encode())
    assert result.seen[2] < result.seen[1] < result.seen[0] <= result.tokens


def test_each_document_starts_fresh():
    """A document's first token is scored from the start state, whatever the last one ended with;
    the model learned how documents begin (here: always with 2)."""
    model = NgramModel.train([[2, 0, 1], [2, 1, 0]], 3, 3)
    assert next_token_probs(model, []).argmax() == 2
    one = model.evaluate([[0, 1, 2, 0]], [4]).nll_bits
    two = model.evaluate([[0, 1], [2, 0]], [2, 2]).nll_bits
    assert one[:2].tolist() == two[:2].tolist()
    assert two[2] == pytest.approx(-math.log2(next_token_probs(model, [], [2])[0]), rel=1e-12)
    assert two[2] != one[2]


# --- what is invariant ----------------------------------------------------------------------------

shards = st.tuples(
    st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=12), min_size=1, max_size=12),
    st.lists(st.integers(0, 12), max_size=4), st.randoms(use_true_random=False),
    st.sampled_from([1, 2, 3]))


@settings(max_examples=80, deadline=None)
@given(shards)
def test_shards_in_any_order_give_exactly_the_same_total(case):
    """The same documents in one call, or in shards in any order: the same per-token values, and
    the exact sum of them all is the whole evaluation's total, bit for bit."""
    docs, cuts, rng, order = case
    sizes = [3 * len(doc) + 1 for doc in docs]
    model = NgramModel.train([[0, 1, 2, 3, 1, 5], [9, 9, 4, 4]], 10, order)
    whole = model.evaluate(docs, sizes)
    bounds = [0, *sorted(c % (len(docs) + 1) for c in cuts), len(docs)]
    parts = [model.evaluate(docs[a:b], sizes[a:b]) for a, b in zip(bounds, bounds[1:]) if a < b]
    assert sorted(v for p in parts for v in p.nll_bits.tolist()) == sorted(whole.nll_bits.tolist())
    rng.shuffle(parts)
    assert math.fsum(v for p in parts for v in p.nll_bits.tolist()) == whole.total_bits


def test_one_call_equals_every_document_alone_backwards(ours, luxun_lines):
    """Hundreds of documents: a plain running sum would differ in its last bits between the orders,
    the exact sum does not."""
    train, _ = encode_documents(ours, luxun_lines[:300])
    held, sizes = encode_documents(ours, luxun_lines[300:])
    model = NgramModel.train(train, ours.vocab_size, 3)
    whole = model.evaluate(held, sizes)
    alone = [model.evaluate([doc], [size]) for doc, size in zip(held, sizes) if size]
    backwards = [v for e in alone[::-1] for v in e.nll_bits.tolist()]
    assert math.fsum(backwards) == whole.total_bits
    assert sum(e.tokens for e in alone) == whole.tokens and backwards != whole.nll_bits.tolist()


def test_cutting_a_text_into_other_documents_changes_context_models_only():
    """A unigram ignores context: any cut of the same ids gives the same bpb. A bigram or trigram
    restarts at every cut, so the same ids cut differently are scored differently."""
    text = [0, 1, 2, 3, 1, 2, 3, 0, 4, 1, 2]
    train = [[0, 1, 2, 3], [4, 1, 2, 3, 0]]
    cuts = [[text], [text[:5], text[5:]], [text[:1], text[1:8], text[8:]]]
    for order in (1, 2, 3):
        model = NgramModel.train(train, 5, order)
        bpb = {model.evaluate(docs, [2 * len(d) for d in docs]).bits_per_byte for docs in cuts}
        assert len(bpb) == (1 if order == 1 else 3)


def test_bits_per_byte_is_loss_per_token_over_bytes_per_token():
    model = NgramModel.train(TOY, 3, 2)
    result = model.evaluate([[0, 1, 2], [1, 1]], [7, 4])
    assert result.bits_per_byte == pytest.approx(result.bits_per_token / result.bytes_per_token)
    assert result.nats_per_token == pytest.approx(result.bits_per_token * math.log(2))
    assert result.bytes_per_token == 11 / 5


def test_from_loss_is_the_evaluations_bits_per_byte():
    """A training log's mean loss in nats, its tokens and bytes give the same bpb."""
    assert from_loss(math.log(2), 5, 5) == 1.0  # one bit per token, one byte per token
    assert from_loss(2 * math.log(2), 3, 6) == pytest.approx(1.0)
    model = NgramModel.train(TOY, 3, 3)
    result = model.evaluate([[0, 1, 2], [1, 1]], [7, 4])
    assert result.bits_per_byte == from_loss(result.nats_per_token, result.tokens, result.bytes)
    assert result.bits_per_byte == pytest.approx(result.total_bits / result.bytes, rel=1e-15)
    with pytest.raises(ValueError, match="n_bytes"):
        from_loss(1.0, 3, 0)
    with pytest.raises(ValueError, match="tokens"):
        from_loss(1.0, 0, 3)
    with pytest.raises(ValueError, match="mean_loss_nats"):
        from_loss(-1.0, 3, 3)
    with pytest.raises(TypeError, match="tokens"):
        from_loss(1.0, 3.0, 3)


def test_segmenter_path_agrees_with_measure(ours, luxun_lines):
    """evaluate_tokenizer = encode, train, evaluate; its bytes per token is measure's."""
    train, held = luxun_lines[:300], luxun_lines[300:]
    result = evaluate_tokenizer(ours, train, held, order=2)
    train_ids, _ = encode_documents(ours, train)
    held_ids, sizes = encode_documents(ours, held)
    again = NgramModel.train(train_ids, ours.vocab_size, 2).evaluate(held_ids, sizes)
    assert result.bits_per_byte == again.bits_per_byte
    size = measure.compression(ours.encode, held)
    assert (result.tokens, result.bytes) == (size.tokens, size.bytes)


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("docs, vocab_size, order, error, words", [
    ([], 3, 3, ValueError, "at least one token"),
    ([[], []], 3, 3, ValueError, "at least one token"),
    ([[0, 3]], 3, 3, ValueError, r"documents\[0\]\[1\]"),
    ([[0, -1]], 3, 3, ValueError, r"documents\[0\]\[1\]"),
    ([[0]], 0, 3, ValueError, "vocab_size"),
    ([[0]], 2**21, 3, ValueError, "vocab_size"),
    ([[0]], 3, 4, ValueError, "order must be one of"),
    ([[0]], 3, 0, ValueError, "order must be one of"),
    ([[0]], 3.0, 3, TypeError, "vocab_size"),
    ([[0.0]], 3, 3, TypeError, r"documents\[0\]\[0\]"),
    ([[True]], 3, 3, TypeError, r"documents\[0\]\[0\]"),
    ("012", 3, 3, TypeError, "documents"),
    ([{0, 1}], 3, 3, TypeError, r"documents\[0\]"),
    ([np.array([[0, 1]])], 3, 3, ValueError, r"documents\[0\]"),
])
def test_training_refuses_bad_input(docs, vocab_size, order, error, words):
    with pytest.raises(error, match=words):
        NgramModel.train(docs, vocab_size, order)


@pytest.mark.parametrize("docs, sizes, words", [
    ([[0, 1]], [0], r"doc_bytes\[0\] must be >= 1"),
    ([[]], [0], "at least one token"),
    ([[], []], [3, 0], "at least one token"),
    ([], [], "at least one token"),
    ([[0, 1]], [-1], "doc_bytes"),
    ([[0, 1]], [2, 2], "same length"),
    ([[0, 5]], [2], r"documents\[0\]\[1\]"),
])
def test_evaluation_refuses_bad_input(docs, sizes, words):
    with pytest.raises(ValueError, match=words):
        NgramModel.train(TOY, 3, 3).evaluate(docs, sizes)


def test_other_bad_input():
    model = NgramModel.train(TOY, 3, 2)
    with pytest.raises(TypeError, match="segmenter"):
        evaluate_tokenizer(model, ["a"], ["b"])
    assert isinstance(model.evaluate([[0], []], [1, 0]), Evaluation)  # an empty text is fine


def test_an_evaluation_cannot_be_changed_under_its_cached_total():
    model = NgramModel.train(TOY, 3, 2)
    with pytest.raises(ValueError, match="read-only"):
        model.evaluate([[0, 1]], [2]).nll_bits[0] = 0.0
