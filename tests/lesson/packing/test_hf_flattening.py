"""Hugging Face's DataCollatorWithFlattening builds the same padding-free row as our functions.

Notebook 09 shows the parity on one packed row; here it holds for random documents and for real
Tatoeba sentences. transformers returns numpy without PyTorch (`return_tensors="np"`).
"""

import numpy as np
import pytest

from tutorial_lib import data
from tutorial_lib.packing import batch, masks

transformers = pytest.importorskip("transformers")


def flatten(docs: list[list[int]]) -> dict:
    collate = transformers.DataCollatorWithFlattening(
        return_tensors="np", return_position_ids=True, return_flash_attn_kwargs=True)
    return collate([{"input_ids": doc} for doc in docs])


def ours(docs: list[list[int]]) -> dict:
    """The same four things from the chapter's functions, given each token's document id."""
    tokens = np.concatenate([np.asarray(doc, dtype=np.int64) for doc in docs])
    doc_ids = masks.doc_ids_from_lengths([len(doc) for doc in docs], len(tokens))
    v = masks.varlen(doc_ids)
    return {"input_ids": tokens, "position_ids": masks.position_ids(doc_ids),
            "labels": batch.next_token_labels(tokens, doc_ids), "cu_seqlens": v.cu_seqlens,
            "max_seqlen": v.max_seqlen}


def assert_same(docs: list[list[int]]) -> None:
    hf, mine = flatten(docs), ours(docs)
    np.testing.assert_array_equal(hf["input_ids"][0], mine["input_ids"])
    np.testing.assert_array_equal(hf["position_ids"][0], mine["position_ids"])
    # HF labels are unshifted (the model shifts): -100 at each document's first position
    starts = mine["cu_seqlens"][:-1]
    assert (hf["labels"][0, starts] == batch.IGNORE_INDEX).all()
    np.testing.assert_array_equal(hf["labels"][0, 1:], mine["labels"][:-1])
    np.testing.assert_array_equal(hf["cu_seq_lens_q"], mine["cu_seqlens"])
    np.testing.assert_array_equal(hf["cu_seq_lens_k"], mine["cu_seqlens"])
    assert hf["max_length_q"] == hf["max_length_k"] == mine["max_seqlen"]


@pytest.mark.parametrize("seed", range(20))
def test_random_documents_flatten_as_the_chapter_packs_them(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 12, size=rng.integers(1, 8))
    assert_same([rng.integers(0, 4096, size=n).tolist() for n in lengths])


def test_real_sentences_flatten_as_the_chapter_packs_them():
    sentences = data.load_text("tatoeba_cmn").splitlines()[100:140]
    assert_same([list(s.encode("utf-8")) for s in sentences])


def test_one_token_documents_have_no_label_at_all():
    hf = flatten([[7], [8], [9]])
    assert (hf["labels"] == batch.IGNORE_INDEX).all()
    assert_same([[7], [8], [9]])
