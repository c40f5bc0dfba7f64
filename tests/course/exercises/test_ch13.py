"""Chapter 13 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold the holes a plausible wrong answer would
slip through, and their expected values are the library's."""

import copy
import inspect
import pickle
import textwrap
import unicodedata

import pytest

from solutions import ch13
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_course.exercises.ch13 import (HAND, OFFSET_SLICES, OFFSET_TEXTS, PAIRINGS,
                                            VECTOR_CATEGORIES, VECTOR_HAND, corpus_lines,
                                            course_with)
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.contract import golden, normalize_cuts, offsets
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
    """NFKC(casefold(x)), one NFKC after the fold: 𝐀 is no capital to casefold until NFKC makes
    it A."""
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

def _n(text, form):
    """Exercise 1's N, as a learner writes it."""
    if form == "none":
        return text
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return unicodedata.normalize(form, text)


def _aligned(x, form):
    """The reference's N(x), and the span of x each of its characters came from."""
    normalized, came_from, s = "", [], 0
    while s < len(x):
        j = next(j for j in range(s + 1, len(x) + 1)
                 if _n(x[s:j], form) + _n(x[j:], form) == _n(x[s:], form))
        normalized += _n(x[s:j], form)
        came_from += [(s, j)] * len(_n(x[s:j], form))
        s = j
    return normalized, came_from


def _pieces(tokenizer, ids):
    return [tokenizer.token_bytes(i) for i in ids]


def _vector_with(**fields):
    """The reference with some fields computed another way (each a function of tokenizer, x)."""
    def vector(tokenizer, category, x):
        found = ch13.golden_vector(tokenizer, category, x)
        if found is None:
            return None
        return found | {key: f(tokenizer, x) for key, f in fields.items()}
    vector.__name__ = "_".join(fields) + "_" + "_".join(f.__name__ for f in fields.values())
    return vector


def _record(tokenizer, category, x):
    """The reference's record for any x, whether it belongs to the category or not."""
    ids = tokenizer.encode_ordinary(x)
    return {"category": category, "input": x,
            "normalized": _aligned(x, tokenizer.normalization)[0], "ids": ids,
            "offsets": _carried(tokenizer, x), "decoded": tokenizer.decode(ids)}


def _every_input_recorded(tokenizer, category, x):
    """Never None: an input of another category is recorded under this one."""
    return _record(tokenizer, category, x)


def _offsets_in_bytes(tokenizer, x):
    """Each token's UTF-8 bytes in N(x), [b, e), not its characters."""
    spans, byte = [], 0
    for piece in _pieces(tokenizer, tokenizer.encode_ordinary(x)):
        spans.append([byte, byte + len(piece)])
        byte += len(piece)
    return spans


def _offsets_of_the_raw_text(tokenizer, x):
    """token_offsets(x, pieces): the pieces of N(x) laid on the bytes of x, as if nothing had
    been normalized (wrong, or an IndexError, once N(x) is longer than x in UTF-8)."""
    spans, _ = ch13.token_offsets(x, _pieces(tokenizer, tokenizer.encode_ordinary(x)))
    return [list(span) for span in spans]


def _end_after_the_last_start(tokenizer, x):
    """end = the start of the last character's span + 1: one character of x for each of N(x),
    which cuts off the U+0308 that made ö with o."""
    normalized, came_from = _aligned(x, tokenizer.normalization)
    spans, _ = ch13.token_offsets(normalized, _pieces(tokenizer, tokenizer.encode_ordinary(x)))
    return [[came_from[a][0], came_from[b - 1][0] + 1] for a, b in spans]


def _each_character_alone(tokenizer, category, x):
    """N applied to each character of x on its own: o and U+0308 stay two characters under NFC
    (so do 'normalized' and the offsets), a span per character of x."""
    if ch13.golden_vector(tokenizer, category, x) is None:
        return None
    form, ids = tokenizer.normalization, tokenizer.encode_ordinary(x)
    normalized = "".join(_n(ch, form) for ch in x)
    came_from = [(i, i + 1) for i, ch in enumerate(x) for _ in _n(ch, form)]
    spans, _ = ch13.token_offsets(normalized, _pieces(tokenizer, ids))
    return {"category": category, "input": x, "normalized": normalized, "ids": ids,
            "offsets": [[came_from[a][0], came_from[b - 1][1]] for a, b in spans],
            "decoded": tokenizer.decode(ids)}


def _carried(tokenizer, x):
    """Right: the spans in N(x) of exercise 2, carried back to x by `_aligned`."""
    normalized, came_from = _aligned(x, tokenizer.normalization)
    spans, _ = ch13.token_offsets(normalized, _pieces(tokenizer, tokenizer.encode_ordinary(x)))
    return [[came_from[a][0], came_from[b - 1][1]] for a, b in spans]


def _spans_as_tuples(tokenizer, x):
    return [tuple(span) for span in _carried(tokenizer, x)]


def _input_as_normalized(tokenizer, x):
    """N(x) recorded as x itself: wrong wherever the tokenizer's form changes it."""
    return x


def _always_nfkc(tokenizer, x):
    return unicodedata.normalize("NFKC", x)


def _decoded_is_the_input(tokenizer, x):
    return x


def _ids_with_every_special_allowed(tokenizer, x):
    """The text <|endoftext|> read as the special token (id 256): not what encode_ordinary
    gives, and not what the record holds."""
    return tokenizer.encode(x, allowed_special="all")


def _ids_of_plain_encode(tokenizer, x):
    """encode(x): the same ids on most text, a ValueError on text that spells a special token."""
    return tokenizer.encode(x)


def test_the_reference_carries_the_spans_back_as_the_library_does():
    by_args = {(c.args[0].normalization, c.args[2]): c.expected
               for c in cases("13.golden_vector") if c.expected}
    assert by_args["NFC", "o\u0308"]["normalized"] == "\u00f6"
    # ö is two bytes, two tokens of the course tokenizer: both come from o and U+0308
    assert by_args["NFC", "o\u0308"]["offsets"] == [[0, 2], [0, 2]]
    assert by_args["none", "o\u0308"]["offsets"] == [[0, 1], [1, 2], [1, 2]]  # U+0308: 2 bytes
    dots = by_args["NFKC", "好…"]
    assert dots["normalized"] == "好..." and dots["offsets"][-1] == [1, 2]
    assert {tuple(s) for s in dots["offsets"][1:]} == {(1, 2)}  # every dot from the one …
    folded = by_args["NFKC_casefold", "Ｓｔｒａßｅ"]
    assert folded["normalized"] == "strasse" and [4, 5] in folded["offsets"]
    wide = by_args["NFKC", "ＡＢＣ"]  # one character from each: the spans in N(x) are right
    in_n = ch13.token_offsets("ABC", _pieces(course_with("NFKC"), wide["ids"]))[0]
    assert wide["normalized"] == "ABC" and wide["offsets"] == [list(span) for span in in_n]
    plain = by_args["none", "The end.<|endoftext|>  Once"]
    assert course_tokenizer.load().special_tokens["<|endoftext|>"] not in plain["ids"]


def test_the_taught_alignment_is_the_librarys_beyond_the_drawn_lines():
    """The rule the prompt teaches (shortest x[s:j] that normalizes apart from the rest) gives
    normalize_aligned's spans on lines of every category that each form rewrites, not only on
    the lines a draw happens to pick."""
    compared = 0
    for form in FORMS[1:]:
        for category in VECTOR_CATEGORIES:
            for x in exercises.ch13._changed_lines(category.name, form)[:60]:
                assert _aligned(x, form) == tuple(normalize_cuts.normalize_aligned(x, form)), x
                compared += 1
    assert compared > 900


def test_plain_encode_fails_on_the_text_that_spells_a_control_token():
    feedback = check("13.golden_vector", _vector_with(ids=_ids_of_plain_encode))
    assert not feedback.passed and "The end.<|endoftext|>  Once" in feedback.message
    assert "ValueError" in feedback.message and "encode_ordinary" in feedback.message


def test_a_wrong_composition_is_shown_with_its_code_points():
    """'ö' (U+00F6) and 'o' + U+0308 print alike: the message spells out both."""
    message = check("13.golden_vector", _each_character_alone).message
    assert "'normalized'" in message
    assert "期望 'ö' U+00F6" in message and "得到 'o' U+006F '\u0308' U+0308" in message


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
    hand = [(c.name, x) for c in VECTOR_CATEGORIES for x in c.inputs] + VECTOR_HAND
    for name, x in hand:  # under every form that records something new
        vectors = [golden.vector(course_with(f), name, x) for f in FORMS]
        shown = [c.expected for c in found if c.args[1:] == (name, x)]
        assert len(shown) == len({repr(v) for v in vectors}) and all(v in shown for v in vectors)
    assert {c.args[0].normalization for c in found} == set(FORMS)
    vectors = [c.expected for c in found if c.expected]
    assert sum(v["normalized"] != v["input"] for v in vectors) >= 20  # N changed the input
    assert sum(len(v["normalized"]) != len(v["input"]) for v in vectors) >= 10  # and its length
    real = [c for c in found if c.args[1:] not in hand and c.expected]
    for form in FORMS[1:]:  # real lines the form rewrites
        assert sum(c.args[0].normalization == form and c.expected["normalized"] != c.args[2]
                   for c in real) >= 4, form


def test_vector_hidden_cases_draw_other_lines():
    public = {c.args[1:] for c in cases("13.golden_vector")}
    hidden = {c.args[1:] for c in cases("13.golden_vector", 3)}
    assert len(hidden - public) >= 20


def _notebook_functions(*functions):
    """The functions defined again from their source in one namespace, as a notebook defines
    them in __main__: golden_vector finds token_offsets as a global there."""
    namespace = {"__name__": "student_notebook"}
    for fn in functions:
        exec(textwrap.dedent(inspect.getsource(fn)), namespace)
    return namespace


def test_a_golden_vector_calling_the_learners_token_offsets_passes_where_it_is_graded():
    """In self-study (a forked child of the kernel); graded as a class is, from the answer cells of
    both exercises: tests/course/classroom/test_grade.py (every chapter's reference)."""
    namespace = _notebook_functions(ch13.token_offsets, ch13.golden_vector)
    fn = namespace["golden_vector"]
    assert check("13.golden_vector", fn).passed
    alone = _notebook_functions(ch13.golden_vector)["golden_vector"]
    feedback = check("13.golden_vector", alone)
    assert not feedback.passed and "NameError" in feedback.message
    assert "token_offsets" in feedback.message


# --- all of them: each plausible mistake fails; graded as the classroom grades them ---------------

PLAUSIBLE_MISTAKES = [
    ("13.invariant_failures", wrong) for wrong in (
        ch13.WRONG_ANSWERS["invariant_failures"], _with_form(_nfc_for_nfkc),
        _with_form(_nfkc_for_nfc), _with_form(_no_second_nfkc), _with_form(_lower_for_casefold),
        _with_form(_casefold_alone), _with_form(_casefold_first), _normalizes_the_decoded_text,
        _compares_ids, _returns_the_texts)
] + [
    ("13.token_offsets", wrong) for wrong in (
        ch13.WRONG_ANSWERS["token_offsets"], _end_at_a_whole_character, _last_character_as_end,
        _start_at_the_next_character, _drops_the_partial_tokens, _decoded_lengths,
        _found_in_the_text, _with_flags(_starts_inside_only), _with_flags(_ends_inside_only))
] + [
    ("13.golden_vector", wrong) for wrong in (
        ch13.WRONG_ANSWERS["golden_vector"], _vector_with(offsets=_offsets_in_bytes),
        _vector_with(offsets=_offsets_of_the_raw_text),
        _vector_with(offsets=_end_after_the_last_start), _each_character_alone,
        _vector_with(ids=_ids_with_every_special_allowed), _vector_with(ids=_ids_of_plain_encode),
        _vector_with(normalized=_input_as_normalized), _every_input_recorded,
        _vector_with(offsets=_spans_as_tuples), _vector_with(normalized=_always_nfkc),
        _vector_with(decoded=_decoded_is_the_input))
]


@pytest.mark.parametrize("key, wrong", PLAUSIBLE_MISTAKES, ids=lambda v: getattr(v, "__name__", v))
def test_public_and_hidden_cases_reject_each_plausible_mistake(key, wrong):
    assert not check(key, wrong).passed
    assert not check(key, wrong, seed=7).passed
