"""Chapter 13 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold the holes a plausible wrong answer would
slip through, and their expected values are the library's."""

import copy
import pickle
import unicodedata

import pytest

from solutions import ch13
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_course.exercises.ch13 import (HAND, OFFSET_SLICES, OFFSET_TEXTS, PAIRINGS, VECTOR_CATEGORIES, corpus_lines, course_with)
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.contract import golden, offsets
from tutorial_lib.contract.normalize import FORMS, normalize

KEYS = ["13.golden_vector", "13.invariant_failures", "13.token_offsets"]


def cases(key, seed=None):
    return exercises.REGISTRY[key].cases(seed)


def test_chapter_13_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("13.")) == KEYS
    assert set(ch13.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_the_shared_tokenizer_is_the_course_tokenizer_with_another_form():
    course = course_tokenizer.load()
    for form in FORMS:
        shared = course_with(form)
        assert shared.normalization == form and form in repr(shared)
        assert (shared.vocab, shared.merges, shared.pattern) == (course.vocab, course.merges,
                                                                 course.pattern)
        assert copy.deepcopy(shared) is shared  # one per check, not one per case
        again = pickle.loads(pickle.dumps(shared))  # as the grading runner receives it
        assert again.normalization == form and again.encode("ａ，") == shared.encode("ａ，")


# --- 13.invariant_failures ------------------------------------------------------------------------

def _with_form(normalized):
    """The reference with another N(x)."""
    def failures(tokenizer, texts, form):
        return [i for i, text in enumerate(texts)
                if tokenizer.decode(tokenizer.encode_ordinary(text)) != normalized(text, form)]
    failures.__name__ = normalized.__name__
    return failures


def _nfc_for_nfkc(text, form):
    """NFC where NFKC is asked: canonical composition only, full-width forms kept."""
    return text if form == "none" else unicodedata.normalize("NFC", text)


def _nfkc_for_nfc(text, form):
    return text if form == "none" else unicodedata.normalize("NFKC", text)


def _no_second_nfkc(text, form):
    """casefold(NFKC(x)) without the last NFKC: ǰ folds to j + a combining caron."""
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", text).casefold()
    return normalize(text, form)


def _lower_for_casefold(text, form):
    """str.lower keeps ß and ẞ (casefold makes them ss)."""
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).lower())
    return normalize(text, form)


def _casefold_first(text, form):
    """NFKC(casefold(x)), one NFKC after the fold: 𝐀 is no capital to casefold until NFKC makes it A."""
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", text.casefold())
    return normalize(text, form)


def _casefold_alone(text, form):
    """Case folding without NFKC: ① and full-width forms kept."""
    return text.casefold() if form == "NFKC_casefold" else normalize(text, form)


def _normalizes_the_decoded_text(tokenizer, texts, form):
    """N(decode(encode(x))) == N(x): true whenever the tokenizer's form is at most as strong."""
    return [i for i, text in enumerate(texts)
            if normalize(tokenizer.decode(tokenizer.encode_ordinary(text)), form)
            != normalize(text, form)]


def _compares_ids(tokenizer, texts, form):
    """encode(x) == encode(N(x)): the tokenizer normalizes both alike, so a form it applies and
    the one asked for never disagree."""
    return [i for i, text in enumerate(texts)
            if tokenizer.encode_ordinary(text) != tokenizer.encode_ordinary(normalize(text, form))]


def _returns_the_texts(tokenizer, texts, form):
    return [texts[i] for i in ch13.invariant_failures(tokenizer, texts, form)]


def _from_the_bytes(tokenizer, texts, form):
    """Right, with the bytes decoded by hand and the library's normalize."""
    return [i for i, text in enumerate(texts)
            if tokenizer.decode_bytes(tokenizer.encode_ordinary(text)).decode("utf-8")
            != normalize(text, form)]


def test_a_right_answer_with_the_library_normalize_passes_unless_it_is_blocked():
    assert check("13.invariant_failures", _from_the_bytes, block_library=False).passed
    assert check("13.invariant_failures", _from_the_bytes, seed=7, block_library=False).passed
    blocked = check("13.invariant_failures", _from_the_bytes, block_library=True)
    assert "不能调用 tutorial_lib.contract.normalize.normalize" in blocked.message


@pytest.mark.parametrize("seed", [None, 3])
def test_invariant_cases_are_the_library_on_right_and_wrong_pairings(seed):
    found = cases("13.invariant_failures", seed)
    assert len(found) == len(HAND) + len(PAIRINGS)
    for case in found:
        tokenizer, texts, form = case.args
        assert case.expected == [i for i, x in enumerate(texts)
                                 if tokenizer.decode(tokenizer.encode(x)) != normalize(x, form)]
        if tokenizer.normalization == form:  # the right pairing: the invariant holds
            assert case.expected == []
    real = found[len(HAND):]
    for case, (ours, checked, name) in zip(real, PAIRINGS):
        tokenizer, texts, form = case.args
        assert (tokenizer.normalization, form) == (ours, checked)
        assert set(texts) <= set(corpus_lines(name)) and len(set(texts)) == len(texts) >= 4
        assert (case.expected != []) == (ours != checked)  # a wrong pairing fails somewhere
        assert len(case.expected) < len(texts)  # and holds somewhere
        assert any(normalize(x, f) != x for x in texts for f in FORMS)
    assert {(c.args[0].normalization, c.args[2]) for c in found} >= {(f, f) for f in FORMS}


def test_the_nfkc_pitfall_is_full_width_chinese_punctuation():
    case = cases("13.invariant_failures")[len(HAND)]
    tokenizer, texts, form = case.args
    assert (tokenizer.normalization, form) == ("NFKC", "none")
    for i in case.expected:
        assert set("，？！：；") & set(texts[i])
        assert tokenizer.decode(tokenizer.encode(texts[i])) == unicodedata.normalize("NFKC",
                                                                                     texts[i])


def test_invariant_hidden_cases_draw_other_lines():
    public = [c.args[1] for c in cases("13.invariant_failures")[len(HAND):]]
    hidden = [c.args[1] for c in cases("13.invariant_failures", 3)[len(HAND):]]
    assert all(set(a) != set(b) for a, b in zip(public, hidden))


# --- 13.token_offsets -----------------------------------------------------------------------------

def _spans(text, pieces, first_char, end_char):
    """The reference with other rules for a token's first and end character, given the byte where
    its bytes start and end and the bytes where each character ends."""
    from itertools import accumulate

    char_ends = list(accumulate(len(ch.encode("utf-8")) for ch in text))
    spans, byte = [], 0
    for piece in pieces:
        end = byte + len(piece)
        spans.append((first_char(char_ends, byte), end_char(char_ends, end)))
        byte = end
    return spans, ch13.token_offsets(text, pieces)[1]


def _end_at_a_whole_character(text, pieces):
    """end = the characters finished by the token's last byte: a token ending inside a character
    leaves it out (the first half of 世 gets (0, 0))."""
    from bisect import bisect_right
    return _spans(text, pieces, bisect_right, bisect_right)


def _last_character_as_end(text, pieces):
    """end = the index of the last character, not one past it."""
    from bisect import bisect_right
    return _spans(text, pieces, lambda ends, b: bisect_right(ends, b),
                  lambda ends, e: bisect_right(ends, e - 1))


def _start_at_the_next_character(text, pieces):
    """start rounded up: a token starting inside a character starts at the next one."""
    from bisect import bisect_left, bisect_right
    return _spans(text, pieces, lambda ends, b: bisect_left([0, *ends], b),
                  lambda ends, e: bisect_right(ends, e - 1) + 1)


def _drops_the_partial_tokens(text, pieces):
    spans, partial = ch13.token_offsets(text, pieces)
    return [s for s, p in zip(spans, partial) if not p], [False] * (len(partial) - sum(partial))


def _decoded_lengths(text, pieces):
    """Counts each token's characters as len(piece.decode(errors='replace')): a cut character
    becomes one U+FFFD per piece, so the spans run past the text."""
    spans, at = [], 0
    for piece in pieces:
        n = len(piece.decode("utf-8", errors="replace"))
        spans.append((at, at + n))
        at += n
    return spans, ch13.token_offsets(text, pieces)[1]


def _found_in_the_text(text, pieces):
    """text.find of the decoded piece from where the last one ended."""
    spans, at = [], 0
    for piece in pieces:
        piece_text = piece.decode("utf-8", errors="ignore")
        start = text.find(piece_text, at) if piece_text else at
        spans.append((start, start + len(piece_text)))
        at = start + len(piece_text)
    return spans, ch13.token_offsets(text, pieces)[1]


def _with_flags(flag):
    def offsets_with(text, pieces):
        spans = ch13.token_offsets(text, pieces)[0]
        byte, flags = 0, []
        for piece in pieces:
            flags.append(flag(text.encode("utf-8"), byte, byte + len(piece)))
            byte += len(piece)
        return spans, flags
    offsets_with.__name__ = flag.__name__
    return offsets_with


def _starts_inside_only(data, b, e):
    return b < len(data) and 0x80 <= data[b] < 0xC0  # a continuation byte


def _ends_inside_only(data, b, e):
    return e < len(data) and 0x80 <= data[e] < 0xC0


def _flags_from_decoding(text, pieces):
    """Right: a token is partial exactly when its bytes alone are not UTF-8 (they come from
    valid text, so a bad start or end is a cut character)."""
    flags = []
    for piece in pieces:
        try:
            piece.decode("utf-8")
            flags.append(False)
        except UnicodeDecodeError:
            flags.append(True)
    return ch13.token_offsets(text, pieces)[0], flags


def test_partial_flags_from_decoding_each_piece_pass():
    assert check("13.token_offsets", _flags_from_decoding, block_library=True).passed
    assert check("13.token_offsets", _flags_from_decoding, seed=7).passed


@pytest.mark.parametrize("seed", [None, 3])
def test_offset_cases_are_the_library_on_both_tokenizers(seed):
    found = cases("13.token_offsets", seed)
    assert len(found) == 2 * len(OFFSET_TEXTS) + 2 + len(OFFSET_SLICES) + 2
    tokenizers = {name: exercises.ch13.byte_level_tokenizer(name) for name in ("course", "gpt2")}
    assert all(t.normalization == "none" for t in tokenizers.values())
    for case in found:
        text, pieces = case.args
        assert b"".join(pieces) == text.encode("utf-8")
        got = [offsets.encode_with_offsets(t, text, allowed_special="all")
               for t in tokenizers.values()]
        assert any([t.token_bytes(i) for i in g.ids] == pieces for g, t in
                   zip(got, tokenizers.values()))
        g = next(g for g, t in zip(got, tokenizers.values())
                 if [t.token_bytes(i) for i in g.ids] == pieces)
        assert case.expected == (list(g.offsets), list(g.partial))
    flags = [f for case in found for f in case.expected[1]]
    assert sum(flags) > 100 and flags.count(False) > 100
    assert any("😀" in case.args[0] for case in found)
    stories = [case for case in found if b"<|endoftext|>" in case.args[1]]  # one special token
    assert len(stories) == 2 and all(not any(c.expected[1]) for c in stories)


def test_the_first_offsets_are_worked_by_hand():
    by_args = {(c.args[0], tuple(c.args[1])): c.expected for c in cases("13.token_offsets")}
    assert by_args[("世", (b"\xe4\xb8", b"\x96"))] == ([(0, 1), (0, 1)], [True, True])  # GPT-2
    assert by_args[("世", (b"\xe4\xb8\x96",))] == ([(0, 1)], [False])  # the course tokenizer
    assert by_args[("", ())] == ([], [])


def test_offset_hidden_cases_cut_other_slices():
    n = len(OFFSET_SLICES) + 2
    public = {c.args[0] for c in cases("13.token_offsets")[-n:]}
    assert not public & {c.args[0] for c in cases("13.token_offsets", 3)[-n:]}


# --- 13.golden_vector -----------------------------------------------------------------------------

def _vector_with(**fields):
    """The reference with some fields computed another way (each a function of tokenizer, x)."""
    def vector(tokenizer, category, x):
        found = ch13.golden_vector(tokenizer, category, x)
        if found is None:
            return None
        return found | {key: f(tokenizer, x) for key, f in fields.items()}
    vector.__name__ = "_".join(fields)
    return vector


def _every_input_recorded(tokenizer, category, x):
    """Never None: an input of another category is recorded under this one."""
    ids = tokenizer.encode_ordinary(x)
    return {"category": category, "input": x, "normalized": normalize(x, tokenizer.normalization),
            "ids": ids, "offsets": [list(s) for s in offsets.encode_with_offsets(tokenizer, x)[1]],
            "decoded": tokenizer.decode(ids)}


def _spans_in_the_normalized_text(tokenizer, x):
    """Offsets of N(x), not of x: they no longer point at the characters the user gave."""
    normalized = normalize(x, tokenizer.normalization)
    return [list(s) for s in offsets.encode_with_offsets(tokenizer, normalized).offsets]


def _spans_as_tuples(tokenizer, x):
    return list(offsets.encode_with_offsets(tokenizer, x).offsets)


def _always_nfkc(tokenizer, x):
    return unicodedata.normalize("NFKC", x)


def _decoded_is_the_input(tokenizer, x):
    return x


def _ids_with_specials(tokenizer, x):
    """Right: encode with nothing allowed gives encode_ordinary's ids on text without a control
    token, which is every input of these categories."""
    return tokenizer.encode(x)


def test_a_vector_with_encode_instead_of_encode_ordinary_passes():
    right = _vector_with(ids=_ids_with_specials)
    assert check("13.golden_vector", right).passed
    assert check("13.golden_vector", right, seed=7).passed


@pytest.mark.parametrize("seed", [None, 3])
def test_vector_cases_are_golden_vectors_of_every_ordinary_category(seed):
    found = cases("13.golden_vector", seed)
    by_category = {c.name: c for c in golden.CATEGORIES}
    for case in found:
        tokenizer, name, x = case.args
        category = by_category[name]
        assert not category.allowed_special and name != "malformed"
        if category.belongs(x):
            assert case.expected == golden.vector(tokenizer, name, x)
            assert case.expected["decoded"] == case.expected["normalized"]  # the invariant
        else:
            assert case.expected is None
    names = {c.args[1] for c in found}
    assert names == {c.name for c in VECTOR_CATEGORIES} and len(names) == 9
    for category in VECTOR_CATEGORIES:  # its own inputs all, and some that are not its own
        mine = [c for c in found if c.args[1] == category.name]
        assert set(category.inputs) <= {c.args[2] for c in mine}
        assert any(c.expected is None for c in mine)
    assert {c.args[0].normalization for c in found} == set(FORMS)
    vectors = [c.expected for c in found if c.expected]
    assert sum(v["normalized"] != v["input"] for v in vectors) >= 5  # N changed the input
    assert any(len(v["normalized"]) != len(v["input"]) for v in vectors)  # and its length


def test_vector_hidden_cases_draw_other_lines():
    public = {c.args[1:] for c in cases("13.golden_vector")}
    hidden = {c.args[1:] for c in cases("13.golden_vector", 3)}
    assert len(hidden - public) >= 9


# --- all of them: each plausible mistake fails; graded as the classroom grades them ---------------

PLAUSIBLE_MISTAKES = [
    ("13.invariant_failures", wrong) for wrong in (
        ch13.WRONG_ANSWERS["invariant_failures"], _with_form(_nfc_for_nfkc),
        _with_form(_nfkc_for_nfc), _with_form(_no_second_nfkc), _with_form(_lower_for_casefold),
        _with_form(_casefold_alone), _with_form(_casefold_first), _normalizes_the_decoded_text, _compares_ids,
        _returns_the_texts)
] + [
    ("13.token_offsets", wrong) for wrong in (
        ch13.WRONG_ANSWERS["token_offsets"], _end_at_a_whole_character, _last_character_as_end,
        _start_at_the_next_character, _drops_the_partial_tokens, _decoded_lengths,
        _found_in_the_text, _with_flags(_starts_inside_only), _with_flags(_ends_inside_only))
] + [
    ("13.golden_vector", wrong) for wrong in (
        ch13.WRONG_ANSWERS["golden_vector"], _every_input_recorded,
        _vector_with(offsets=_spans_in_the_normalized_text), _vector_with(offsets=_spans_as_tuples),
        _vector_with(normalized=_always_nfkc), _vector_with(decoded=_decoded_is_the_input))
]


@pytest.mark.parametrize("key, wrong", PLAUSIBLE_MISTAKES, ids=lambda v: getattr(v, "__name__", v))
def test_public_and_hidden_cases_reject_each_plausible_mistake(key, wrong):
    assert not check(key, wrong).passed
    assert not check(key, wrong, seed=7).passed
