"""Root cause 5: shapes and values were not checked against each other (a one-row mask stretched
over a batch, a mask value 2 read as padding, cu_seqlens that stop short); labels, the varlen
attention and the attention weights now refuse what does not fit, naming the arguments and their
shapes or values."""

import numpy as np
import pytest

from tutorial_lib.packing import attention, batch, masks
from tutorial_lib.packing.batch import Batch

Q = np.random.default_rng(0).normal(size=(5, 4))
ALL = np.ones((5, 5), dtype=bool)

CASES = [
    ("labels with a one-row mask (was broadcast)",
     lambda: batch.labels(Batch([[1, 2, 3], [4, 5, 6]], [[1, 1, 0]])),
     r"batch\.input_ids and batch\.attention_mask must have the same shape, got \(2, 3\) and \(1, 3\)"),
    ("labels with a mask value 2 (was padding)", lambda: batch.labels(Batch([[1, 2, 3]], [[1, 2, 0]])),
     r"batch\.attention_mask\[0\]\[1\] must be an int in \[0, 1\], got 2"),
    ("labels with an array mask holding 2",
     lambda: batch.labels(Batch([[1, 2, 3]], np.array([[1, 2, 0]]))),
     r"batch\.attention_mask must hold ints in \[0, 1\], got 2"),
    ("labels with a mask narrower than the ids", lambda: batch.labels(Batch([[1, 2, 3]], [[1, 1]])),
     r"same shape, got \(1, 3\) and \(1, 2\)"),
    ("varlen_attention, cu_seqlens [0, 3] on 5 tokens (tokens 3-4 were zeros)",
     lambda: attention.varlen_attention(Q, Q, Q, [0, 3]),
     r"cu_seqlens must start at 0 and end at 5, the number of tokens in q, got \[0, 3\]"),
    ("varlen_attention, cu_seqlens that decrease",
     lambda: attention.varlen_attention(Q, Q, Q, [0, 3, 2, 5]),
     r"cu_seqlens must never decrease .* got cu_seqlens\[2\] = 2 after 3"),
    ("varlen_attention, cu_seqlens that overrun", lambda: attention.varlen_attention(Q, Q, Q, [0, 3, 7]),
     r"end at 5, .* got \[0, 3, 7\]"),
    ("varlen_attention, cu_seqlens not from 0", lambda: attention.varlen_attention(Q, Q, Q, [1, 5]),
     r"start at 0 .* got \[1, 5\]"),
    ("varlen_attention, empty cu_seqlens", lambda: attention.varlen_attention(Q, Q, Q, []),
     r"start at 0 .* got \[\]"),
    ("varlen_attention, a negative offset", lambda: attention.varlen_attention(Q, Q, Q, [0, -1, 5]),
     r"cu_seqlens\[1\] must be an int >= 0, got -1"),
    ("varlen_attention, k with fewer tokens", lambda: attention.varlen_attention(Q, Q[:4], Q, [0, 5]),
     r"q, k and v must be \(total, dim\) arrays with the same total, got shapes \(5, 4\), \(4, 4\)"),
    ("varlen_attention, batched q", lambda: attention.varlen_attention(Q[None], Q[None], Q[None], [0, 5]),
     r"\(total, dim\) arrays .* got shapes \(1, 5, 4\)"),
    ("attention_weights, a wrong-size mask", lambda: attention.attention_weights(Q, Q, ALL[:4, :4]),
     r"mask must end in \(queries, keys\) = \(5, 5\) for q of shape \(5, 4\) and k of shape \(5, 4\), "
     r"got shape \(4, 4\)"),
    ("attention_weights, a 1-D mask", lambda: attention.attention_weights(Q, Q, ALL[0]),
     r"mask must end in \(queries, keys\) = \(5, 5\) .* got shape \(5,\)"),
    ("attention_weights, q and k of different widths",
     lambda: attention.attention_weights(Q, Q[:, :3], ALL),
     r"q and k must have the same width \(last dimension\), got shapes \(5, 4\) and \(5, 3\)"),
    ("attention_weights, batches that do not broadcast",
     lambda: attention.attention_weights(np.stack([Q, Q]), np.stack([Q, Q, Q]), ALL),
     r"q, k and mask must have batch dimensions that broadcast together, got shapes \(2, 5, 4\), "
     r"\(3, 5, 4\) and \(5, 5\)"),
    ("attention, v with another number of keys", lambda: attention.attention(Q, Q, Q[:3], ALL),
     r"k and v must hold one row per key, got shapes \(5, 4\) and \(3, 4\)"),
    ("next_token_labels([5, -100, 6]) took a token like the ignore label",
     lambda: batch.next_token_labels([5, -100, 6], [0, 0, 0]), r"tokens\[1\] must be an int >= 0, got -100"),
    ("next_token_labels, an array with -100",
     lambda: batch.next_token_labels(np.array([5, -100, 6]), [0, 0, 0]), r"tokens must hold ints >= 0, got -100"),
]


@pytest.mark.parametrize("name, call, message", CASES, ids=[c[0] for c in CASES])
def test_shapes_and_values_that_do_not_fit_are_refused(name, call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_what_fits_is_computed_as_before():
    ids = [[1, 2, 3], [4, 5, 6]]
    assert batch.labels(Batch(ids, [[1, 1, 0], [1, 0, 0]])).tolist() == [[1, 2, -100], [4, -100, -100]]
    doc_ids = [0, 0, 0, 1, 1]
    want = attention.attention(Q, Q, Q, masks.document_mask(doc_ids))
    cu = masks.varlen(doc_ids).cu_seqlens  # int32, as FlashAttention takes it
    np.testing.assert_allclose(attention.varlen_attention(Q, Q, Q, cu), want)
    # an empty slice is a document of no tokens: nothing to attend, nothing changes
    np.testing.assert_allclose(attention.varlen_attention(Q, Q, Q, [0, 3, 3, 5]), want)
    # a mask shared by every batch row and head broadcasts, as numpy and torch allow
    batched = attention.attention_weights(np.stack([Q, Q]), Q, masks.causal_mask(5))
    assert batched.shape == (2, 5, 5)
    np.testing.assert_allclose(batched[1], attention.attention_weights(Q, Q, masks.causal_mask(5)))
