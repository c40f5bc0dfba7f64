"""What a vocabulary costs a model: embedding parameters, their bytes, padding to a multiple."""

import pytest

from tutorial_lib.bpe import embedding


def test_embedding_params_bytes_and_share():
    assert embedding.embedding_params(32768, 4096) == 134_217_728
    assert embedding.embedding_params(32768, 4096, tied=False) == 2 * 134_217_728
    assert embedding.embedding_bytes(32768, 4096) == 2 * 134_217_728  # bf16 by default
    assert embedding.embedding_bytes(32768, 4096, tied=False, bytes_per_param=4) == 8 * 134_217_728
    with pytest.raises(ValueError, match="bytes_per_param"):
        embedding.embedding_bytes(10, 10, bytes_per_param=0)
    assert embedding.embedding_share(32768, 4096, 7e9) == pytest.approx(0.01917, abs=1e-5)
    with pytest.raises(ValueError, match="total_params"):
        embedding.embedding_share(32768, 4096, 1e6)
    with pytest.raises(TypeError, match="tied"):
        embedding.embedding_params(10, 10, tied="yes")
    with pytest.raises(ValueError, match="d_model"):
        embedding.embedding_params(10, 0)


def test_padded_vocab_size_rounds_up_to_the_multiple():
    assert embedding.padded_vocab_size(50257, 64) == 50304  # GPT-2 in nanoGPT
    assert embedding.padded_vocab_size(128256, 128) == 128256  # already a multiple: unchanged
    assert embedding.padded_vocab_size(100277, 128) == 100352
    assert embedding.padded_vocab_size(1, 128) == 128 and embedding.padded_vocab_size(7, 1) == 7
    for bad in (0, 1.5, True):
        with pytest.raises((TypeError, ValueError), match="multiple"):
            embedding.padded_vocab_size(10, bad)


def test_padding_costs_whole_rows_of_every_matrix():
    assert embedding.embedding_params(50257, 768, multiple=64) == 50304 * 768
    extra = embedding.embedding_bytes(100277, 4096, tied=False, bytes_per_param=2, multiple=128)
    plain = embedding.embedding_bytes(100277, 4096, tied=False)
    assert extra - plain == (100352 - 100277) * 4096 * 2 * 2
    assert isinstance(extra, int)
