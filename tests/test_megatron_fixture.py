"""data/megatron/ holds .bin/.idx pairs that megatron-core itself wrote (tools/make_megatron_fixture.py, see
data/PROVENANCE.md): our reader must get back exactly what our GPT-2 tokenizer makes of the same stories."""

import numpy as np
import pytest

from tutorial_lib import data
from tutorial_lib.packing.megatron import Header, IndexedDataset, idx_path, read_header
from tutorial_lib.tokenization.tokenizer import Tokenizer

FIXTURE = data.DATA_DIR / "megatron"
EOD = 50256  # GPT-2's <|endoftext|>


@pytest.fixture(scope="module")
def gpt2():
    return Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=["<|endoftext|>"])


def test_one_sequence_per_story_uint16(gpt2):
    prefix = FIXTURE / "tinystories_gpt2_text_document"
    stories = data.tinystories_documents()[:40]
    assert read_header(idx_path(prefix)) == Header(1, np.dtype(np.uint16), 40, 41, 34)
    dataset = IndexedDataset(prefix)
    assert dataset.document_indices.tolist() == list(range(41))
    for i, story in enumerate(stories):
        assert dataset[i].tolist() == gpt2.encode_ordinary(story) + [EOD], f"story {i}"
    assert dataset.num_tokens == sum(len(dataset[i]) for i in range(40))


def test_one_sequence_per_line_int32(gpt2):
    prefix = FIXTURE / "tinystories_gpt2_int32_text_sentence"
    expected = []
    for story in data.tinystories_documents()[:8]:
        lines = [gpt2.encode_ordinary(line) for line in story.split("\n") if line]
        lines[-1].append(EOD)
        expected.append(lines)
    n_sequences = sum(map(len, expected))
    assert read_header(idx_path(prefix)) == Header(1, np.dtype(np.int32), n_sequences, 9, 34)
    dataset = IndexedDataset(prefix)
    assert dataset.document_indices.tolist() == np.cumsum([0] + [len(lines) for lines in expected]).tolist()
    sequences = [ids for lines in expected for ids in lines]
    assert [s.tolist() for s in dataset[:]] == sequences
    for k, lines in enumerate(expected):
        assert dataset.document(k).tolist() == [i for ids in lines for i in ids]
