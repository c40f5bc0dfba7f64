"""The streaming decoder: any chunking gives decode(ids), whole characters only, and the U+FFFD
counts of each way of decoding real Chinese."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer, formats
from tutorial_lib.contract.stream_decode import (REPLACEMENT, StreamDecoder, cut_mid_character, decode_stream, fffd_counts)

COURSE = course_tokenizer.load()



def chunked(ids, cuts):
    """`ids` cut at the sorted positions `cuts`."""
    bounds = [0, *sorted(c % (len(ids) + 1) for c in cuts), len(ids)]
    return [ids[a:b] for a, b in zip(bounds, bounds[1:])]


# Any ids at all: pieces of characters, stray continuation bytes, specials, whole words.
ANY_IDS = st.lists(st.integers(0, COURSE.vocab_size - 1), max_size=40)


@settings(max_examples=300, deadline=None)
@given(ANY_IDS, st.lists(st.integers(0, 100), max_size=8),
       st.sampled_from(["replace", "backslashreplace"]))
def test_any_chunking_of_any_ids_joins_to_decode(ids, cuts, errors):
    pieces = decode_stream(COURSE, chunked(ids, cuts), errors)
    assert "".join(pieces) == COURSE.decode(ids, errors=errors)


@settings(max_examples=200, deadline=None)
@given(ANY_IDS, st.lists(st.integers(0, 100), max_size=8))
def test_strict_raises_exactly_when_decode_does(ids, cuts):
    try:
        expected = COURSE.decode(ids, errors="strict")
    except ValueError:
        with pytest.raises(ValueError, match="not valid UTF-8|ended inside a character"):
            decode_stream(COURSE, chunked(ids, cuts), "strict")
    else:
        assert "".join(decode_stream(COURSE, chunked(ids, cuts), "strict")) == expected


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=60))
def test_valid_text_one_id_at_a_time_never_shows_a_replacement_character(text):
    ids = COURSE.encode_ordinary(text)
    pieces = decode_stream(COURSE, ([i] for i in ids), "strict")
    assert "".join(pieces) == text
    assert sum(piece.count(REPLACEMENT) for piece in pieces) == text.count(REPLACEMENT)


def test_a_character_split_over_three_tokens_comes_out_whole_with_the_last(gpt2):
    ids = gpt2.encode_ordinary("鲁")  # three byte tokens in GPT-2
    assert len(ids) == 3 and all(REPLACEMENT in gpt2.decode([i]) for i in ids)
    decoder = StreamDecoder(gpt2)
    assert [decoder.push([ids[0]]), decoder.pending] == ["", "鲁".encode()[:1]]
    assert [decoder.push([ids[1]]), decoder.pending] == ["", "鲁".encode()[:2]]
    assert [decoder.push([ids[2]]), decoder.pending, decoder.flush()] == ["鲁", b"", ""]


def test_ids_cut_mid_character_strict_refuses_and_replace_and_flush_give_one_fffd():
    text = data.load_text("luxun")
    ids = cut_mid_character(COURSE, text)
    assert len(ids) == 187407  # of 187,429: the last token that ends inside a character
    with pytest.raises(ValueError, match=r"not valid UTF-8 \(unexpected end of data\)"):
        COURSE.decode(ids, errors="strict")
    decoded = COURSE.decode(ids)
    assert decoded.count(REPLACEMENT) == 1 and decoded[-1] == REPLACEMENT
    decoder = StreamDecoder(COURSE)
    streamed = "".join(decoder.push([i]) for i in ids)
    assert REPLACEMENT not in streamed and decoder.pending == b"\xe7\x8b"
    assert decoder.flush() == REPLACEMENT and decoder.pending == b""
    strict = StreamDecoder(COURSE, errors="strict")
    assert "".join(strict.push([i]) for i in ids) == streamed  # nothing wrong until the end
    with pytest.raises(ValueError, match=r"stream ended inside a character.*b'\\xe7\\x8b'"):
        strict.flush()


def test_fffd_counts_on_lu_xun():
    counts = fffd_counts(COURSE, data.load_text("luxun"))
    # the course tokenizer holds most Han characters whole, yet 32,604 of its tokens are pieces
    assert counts == {"characters": 202677, "tokens": 187429, "split_tokens": 32604,
                      "in_text": 0, "id_by_id": 32605, "whole": 0, "stream": 0}


def test_fffd_counts_with_gpt2_on_a_lu_xun_paragraph(gpt2):
    paragraph = data.load_text("luxun").splitlines()[4]
    counts = fffd_counts(gpt2, paragraph)
    assert counts["whole"] == counts["stream"] == 0
    assert counts["id_by_id"] >= counts["split_tokens"] > counts["characters"] // 2


def test_strict_push_names_the_stream_position_and_the_id():
    decoder = StreamDecoder(COURSE, errors="strict")
    assert decoder.push([ord("a"), 0xE4]) == "a"
    with pytest.raises(ValueError, match=r"at byte 1 of the stream, held from an earlier id"):
        decoder.push([ord("b")])
    assert decoder.pending == b""  # reset: a new stream can start
    decoder.push([ord("x")])
    with pytest.raises(ValueError, match=r"invalid start byte\) at byte 2 of the stream, in "
                                         r"ids\[1\] = 255 of this push \(id 2 of the stream\)"):
        decoder.push([ord("y"), 0xFF])


def test_replace_mid_stream_matches_decode():
    ids = [ord("a"), 0xE4, ord("b"), 0xFF, 0xE4, 0xB8]
    assert decode_stream(COURSE, [[i] for i in ids]) == ["a", "", "\ufffdb", "\ufffd", "", "",
                                                         "\ufffd"]
    assert "".join(decode_stream(COURSE, [ids])) == COURSE.decode(ids) == "a\ufffdb\ufffd\ufffd"


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="errors must be one of"):
        StreamDecoder(COURSE, errors="ignore")
    with pytest.raises(TypeError, match="tokenizer"):
        StreamDecoder("gpt2")
    with pytest.raises(ValueError, match="not a token id"):
        StreamDecoder(COURSE).push([COURSE.vocab_size])
    with pytest.raises(TypeError, match="ids"):
        StreamDecoder(COURSE).push("abc")
    with pytest.raises(ValueError, match="ends inside a character"):
        cut_mid_character(COURSE, "plain ASCII")
