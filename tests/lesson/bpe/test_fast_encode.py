"""The fast path of encoding gives the plain merge loop's ids: the heap gives the scan's ids, the
rank-by-rank loop of megabyte pieces the heap's, the exact cuts give the uncut ids, and the pre-token
cache stays bounded."""

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe import fast_encode
from tutorial_lib.bpe.fast_encode import (CACHED_CHARS, HEAP_ABOVE, LEAN_ABOVE, Boundaries, apply_merges, merge_by_scan, merge_in_rank_order, merge_with_heap)
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer


@pytest.fixture(scope="module")
def tiktoken_and_ours(cl100k, gpt4):
    """GPT-4's cl100k twice: tiktoken's, and ours with the merges recovered from it (the session's)."""
    return cl100k, gpt4


@pytest.fixture(scope="module")
def trained():
    texts = [data.load_text("tinystories")[:20_000], data.load_text("luxun")[:5_000]]
    return train_tokenizer(texts, 500, pattern="gpt4")


@pytest.fixture(scope="module")
def runs():
    """A tokenizer trained on runs of a, b, c: its merges make long tokens like aaaa and abab, so
    many merges compete inside one word, with ties between equal pairs side by side."""
    rng = random.Random(0)
    words = ["".join(rng.choice("aaabbc") for _ in range(rng.randint(1, 40))) for _ in range(300)]
    return train_tokenizer([" ".join(words)], 330)


def both_loops(tok, ids):
    args = tok.piece_ids.pair_ranks, tok.piece_ids.merged
    return merge_by_scan(list(ids), *args), merge_with_heap(list(ids), *args)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(b"aaabbc"), max_size=300))
def test_heap_and_scan_agree_on_runs(runs, word):
    scan, heap = both_loops(runs, [runs.piece_ids.byte_ids[b] for b in word])
    assert heap == scan


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdefghilnorstuwé的我们了是不人工智能", max_size=200))
def test_heap_and_scan_agree_on_real_tokenizers(trained, tiktoken_and_ours, word):
    for tok in (trained, tiktoken_and_ours[1]):
        scan, heap = both_loops(tok, [tok.piece_ids.byte_ids[b] for b in word.encode()])
        assert heap == scan


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzé中文", min_size=HEAP_ABOVE // 3,
               max_size=3 * HEAP_ABOVE))
def test_pieces_around_the_threshold_give_tiktokens_ids(tiktoken_and_ours, word):
    cl100k, gpt4 = tiktoken_and_ours
    assert gpt4.encode_ordinary(word) == cl100k.encode_ordinary(word)


@pytest.mark.parametrize("alphabet", ["abcdefghijklmnopqrstuvwxyz", "a", "ab",
                                      "的一是不了人我在有他这中大来上国个"])
def test_long_words_give_tiktokens_ids(tiktoken_and_ours, alphabet):
    cl100k, gpt4 = tiktoken_and_ours
    rng = random.Random(len(alphabet))
    word = "".join(rng.choice(alphabet) for _ in range(20_000))
    assert gpt4.encode_ordinary(word) == cl100k.encode_ordinary(word)


def test_apply_merges_rebuilds_the_longest_token_of_cl100k(tiktoken_and_ours):
    gpt4 = tiktoken_and_ours[1]
    # A token's own bytes merge back into the token; the longest of cl100k goes through the heap.
    pieces = gpt4.piece_ids
    longest = max(pieces.merged, key=lambda i: len(gpt4.vocab[i]))
    assert len(gpt4.vocab[longest]) > HEAP_ABOVE
    ids = [pieces.byte_ids[b] for b in gpt4.vocab[longest]]
    assert apply_merges(list(ids), pieces.pair_ranks, pieces.merged) == [longest]


# ---------------------------------------------------------------------------------------- the cache


def test_only_short_pieces_are_cached(trained):
    tok = Tokenizer(trained.vocab, trained.merges, pattern=trained.pattern)
    # pre-tokens "aa...a" and " bb...b", one too long
    text = "a" * CACHED_CHARS + " " + "b" * CACHED_CHARS
    ids = tok.encode_ordinary(text)
    assert list(tok.piece_ids) == ["a" * CACHED_CHARS]
    assert tok.decode(ids) == text
    assert tok.encode_ordinary(text) == ids  # the long piece is merged again, the same way


def test_a_full_cache_starts_afresh(trained, monkeypatch):
    monkeypatch.setattr(fast_encode, "CACHE_SIZE", 10)
    tok = Tokenizer(trained.vocab, trained.merges, pattern=trained.pattern)
    text = " ".join(f"w{i}" for i in range(100))
    assert tok.decode(tok.encode_ordinary(text)) == text
    assert 0 < len(tok.piece_ids) <= 10


# --------------------------------------------------------------------------------------- exact cuts

BYTES = {i: bytes([i]) for i in range(256)}


# gpt4: the session fixture of tests/conftest.py, the second of tiktoken_and_ours


@pytest.fixture(scope="module")
def byte_level():
    """Trained on Chinese, Korean and emoji with a pattern that keeps them in long pieces: it learns
    merges of partial characters, some of which reach across from one character into the next."""
    text = data.load_text("luxun")[:3000] + data.load_text("flores/kor_Hang")[:3000]
    text += "😀🙂👍🏽" * 50
    return train_tokenizer([text], 700, pattern=r"\S+|\s+")


DE, YI = "的".encode(), "一".encode()  # e7 9a 84, e4 b8 80


@pytest.fixture(scope="module")
def across():
    """Merges that reach from one character into the next: "的" + the lead byte of "一", 84 + e4."""
    merges = [(DE[:1], DE[1:2]), (DE[:2], DE[2:]), (DE, YI[:1]), (DE[2:], YI[:1]),
              (YI[1:2], YI[2:])]
    vocab = BYTES | {256 + k: a + b for k, (a, b) in enumerate(merges)}
    return Tokenizer(vocab, merges, pattern=r"\S+|\s+")


@pytest.mark.parametrize("tokens, piece, segments", [
    ([], "的一的", ["的", "一", "的"]),  # no merges: every boundary can be cut
    ([b"ab"], "abc", ["ab", "c"]),
    ([DE + YI[:1]], "的一的", ["的一", "的"]),  # "的" + the lead byte of "一"
    ([DE + YI[:1]], "的的", ["的", "的"]),  # ... which cannot start "的"
    ([DE[2:] + YI[:1]], "的一一", ["的一", "一"]),  # the last byte of "的" + the lead byte of "一"
    ([DE[2:] + YI[:1]], "一的", ["一", "的"]),
    ([DE[1:] + b"a"], "的ab", ["的a", "b"]),
    ([DE[1:] + b"a"], "一ab", ["一", "a", "b"]),  # "一" does not end in 9a 84
])
def test_cuts_only_where_no_merge_reaches_across(tokens, piece, segments):
    assert Boundaries(tokens).segments(piece) == segments


def test_most_han_boundaries_are_cut_under_cl100k(gpt4):
    piece = "我们的一天是不是很好"
    assert len(gpt4.piece_ids.boundaries.segments(piece)) >= len(piece) - 1


def test_a_long_han_piece_is_cached_by_segments(gpt4):
    tok = Tokenizer(gpt4.vocab, gpt4.merges, pattern=gpt4.pattern)
    piece = data.load_text("luxun")[:2000].replace("\n", "")[:40]
    assert tok.piece_ids.merge(piece) == tuple(tok.encode_ordinary(piece))
    assert len(tok.piece_ids) > 1  # the segments; the piece itself is longer than CACHED_CHARS


def unsplit(tok, text):
    return [i for piece in tok.compiled_pattern.findall(text) for i in tok.piece_ids.merge(piece)]


ALPHABET = ("的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会"
            "ab ,。你好😀🙂👍🏽é가나다")


@settings(max_examples=200, deadline=None)
@given(st.text(ALPHABET, max_size=60), st.text(max_size=20))
def test_split_and_unsplit_encoding_agree(gpt4, byte_level, across, text, noise):
    text += noise
    for tok in (gpt4, byte_level, across):
        assert tok.encode_ordinary(text) == unsplit(tok, text)


@settings(max_examples=200, deadline=None)
@given(st.text(ALPHABET, min_size=1, max_size=40))
def test_segments_merge_alone_as_they_merge_together(byte_level, across, piece):
    """Any str, not just a pre-token, and ASCII too: the cuts are a property of the merges alone."""
    for tok in (byte_level, across):
        segments = tok.piece_ids.boundaries.segments(piece)
        assert "".join(segments) == piece
        merge = tok.piece_ids.merge
        assert tuple(i for segment in segments for i in merge(segment)) == merge(piece)


# ------------------------------------------------------------------------- the lean loop (megabytes)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(b"aaabbc"), max_size=300))
def test_rank_order_gives_the_heaps_ids_on_runs(runs, word):
    ids = [runs.piece_ids.byte_ids[b] for b in word]
    lean = merge_in_rank_order(array("i", ids), runs.piece_ids.pair_ranks, runs.piece_ids.merged)
    assert list(lean) == merge_with_heap(list(ids), runs.piece_ids.pair_ranks, runs.piece_ids.merged)


@pytest.mark.parametrize("alphabet", ["abcdefghijklmnopqrstuvwxyz", "a", "的一是不了人我在有他这中大来上国个"])
def test_a_piece_beyond_lean_above_gives_tiktokens_ids(tiktoken_and_ours, alphabet):
    cl100k, gpt4 = tiktoken_and_ours
    rng = random.Random(len(alphabet))
    word = "".join(rng.choice(alphabet) for _ in range(LEAN_ABOVE // len(alphabet[0].encode()) + 1000))
    assert len(gpt4.piece_ids.merge(word)) == len(cl100k.encode_ordinary(word))  # merged whole, no cuts
    assert list(gpt4.piece_ids.merge(word)) == cl100k.encode_ordinary(word)


def test_merges_that_make_the_same_bytes_twice_go_to_the_heap(monkeypatch):
    """abc is made by (a, bc) before (abc, d) and again by (ab, c) after it: in "abcd" the pair (abc, d)
    appears only after a merge of higher rank, which the rank-by-rank loop cannot do; it says so."""
    merges = [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc"), (b"abc", b"d"), (b"ab", b"c")]
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc", 259: b"abcd"}
    tok = Tokenizer(vocab, merges)
    pieces = tok.piece_ids
    ids = [pieces.byte_ids[b] for b in b"abcd"]
    assert merge_in_rank_order(array("i", ids), pieces.pair_ranks, pieces.merged) is None
    monkeypatch.setattr(fast_encode, "LEAN_ABOVE", 2)
    assert pieces.merge("abcd") == tuple(merge_by_scan(ids, pieces.pair_ranks, pieces.merged)) == (259,)
