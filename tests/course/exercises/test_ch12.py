"""Chapter 12 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold the holes a plausible wrong answer would
slip through, and their expected values are the library's."""

import math
import statistics

import numpy as np
import pytest

from solutions import ch12
from tutorial_lib import data
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_course.exercises.ch12 import BPB_RUNS, FLORES_SLICES, TRAIN_LINES, VOCABULARIES
from tutorial_lib.evaluation import bits_per_byte
from tutorial_lib.text import model_tokenizers
from tutorial_lib.evaluation.evaluate import Premium

KEYS = ["12.bits_per_byte", "12.premium_summary", "12.token_script"]


def cases(key, seed=None):
    return exercises.REGISTRY[key].cases(seed)


def test_chapter_12_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("12.")) == KEYS
    assert set(ch12.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


# --- 12.premium_summary ---------------------------------------------------------------------------

def _with_p90(p90):
    """The reference with another 90th percentile of the sorted premiums."""
    def summary(lang_counts, eng_counts):
        median, _, top, corpus = ch12.premium_summary(lang_counts, eng_counts)
        ratios = sorted(n / e for n, e in zip(lang_counts, eng_counts))
        return median, p90(ratios), top, corpus
    summary.__name__ = p90.__name__
    return summary


def _nearest_rank(s):
    """The nearest-rank percentile: the smallest premium with 90% of them at or below it."""
    return s[math.ceil(0.9 * len(s)) - 1]


def _lower_rank(s):
    return s[int(0.9 * (len(s) - 1))]


def _rank_of_n(s):
    """Interpolates at 0.9 * n instead of 0.9 * (n - 1)."""
    pos = min(0.9 * len(s), len(s) - 1)
    lo = int(pos)
    return s[lo] + (pos - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def _middle_without_averaging(lang_counts, eng_counts):
    """The upper middle premium for an even count, not the mean of the two middle ones."""
    _, p90, top, corpus = ch12.premium_summary(lang_counts, eng_counts)
    return sorted(n / e for n, e in zip(lang_counts, eng_counts))[len(lang_counts) // 2], p90, \
        top, corpus


def _english_over_lang(lang_counts, eng_counts):
    """The ratios the wrong way up: English tokens per token of the language."""
    return ch12.premium_summary(eng_counts, lang_counts)


def _median_of_counts(lang_counts, eng_counts):
    """Median tokens of the language over median tokens of English, not the median premium."""
    _, p90, top, corpus = ch12.premium_summary(lang_counts, eng_counts)
    return statistics.median(lang_counts) / statistics.median(eng_counts), p90, top, corpus


def _with_numpy(lang_counts, eng_counts):
    """Right, with numpy's median and percentile."""
    ratios = np.array(lang_counts) / np.array(eng_counts)
    return (np.median(ratios), np.percentile(ratios, 90), ratios.max(),
            sum(lang_counts) / sum(eng_counts))


def test_a_numpy_summary_passes():
    assert check("12.premium_summary", _with_numpy).passed
    assert check("12.premium_summary", _with_numpy, seed=7).passed


def test_the_first_toys_are_worked_by_hand():
    first, even = cases("12.premium_summary")[:2]
    assert first.args == ([3, 6, 2], [2, 3, 2])  # premiums 1.5, 2, 1; rank 0.9 * 2 = 1.8
    assert first.expected == pytest.approx((1.5, 1.9, 2.0, 11 / 7), rel=1e-12)
    assert even.expected == pytest.approx((2.5, 3.7, 4.0, 19 / 7), rel=1e-12)


@pytest.mark.parametrize("seed", [None, 3])
def test_premium_cases_are_the_library_on_flores_slices(seed):
    found = cases("12.premium_summary", seed)
    for case in found:
        lang, eng = case.args
        p = Premium.from_counts("", "", lang, eng)
        assert case.expected == (p.median, p.p90, p.max, p.corpus)
        assert case.expected[1] == float(np.percentile([a / b for a, b in zip(lang, eng)], 90))
    real = found[-len(FLORES_SLICES):]
    assert [len(c.args[0]) for c in real] == [n for _, _, n in FLORES_SLICES]
    name, lang, n = FLORES_SLICES[-1]  # a slice of cl100k's own counts, English beside it
    cl100k = model_tokenizers.load(name)
    counts = [len(cl100k.encode(line)) for line in data.load_parallel(lang)]
    english = [len(cl100k.encode(line)) for line in data.load_parallel("eng_Latn")]
    assert any(counts[i:i + n] == real[-1].args[0] and english[i:i + n] == real[-1].args[1]
               for i in range(len(counts) - n + 1))
    assert FLORES_SLICES[5][:2] == ("cl100k", "tha_Thai") and real[5].expected[3] > 3


def test_premium_hidden_cases_cut_other_slices():
    public = [c.args for c in cases("12.premium_summary")[-len(FLORES_SLICES):]]
    hidden = [c.args for c in cases("12.premium_summary", 3)[-len(FLORES_SLICES):]]
    assert all(a != b for a, b in zip(public, hidden))


# --- 12.bits_per_byte -----------------------------------------------------------------------------

def _total_bits(log_probs):
    return -sum(log_probs) / math.log(2)


def _n_bytes(token_bytes):
    return sum(map(len, token_bytes))


def _per_token(log_probs, token_bytes):
    """Divides by the tokens: bits per token."""
    return _total_bits(log_probs) / len(token_bytes)


def _per_character(log_probs, token_bytes):
    """Counts characters, not UTF-8 bytes: the tokens' bytes joined, decoded, len."""
    return _total_bits(log_probs) / len(b"".join(token_bytes).decode("utf-8"))


def _characters_of_each_token(log_probs, token_bytes):
    """Counts each token's characters, a piece of a character as one (errors='replace')."""
    chars = sum(len(token.decode("utf-8", errors="replace")) for token in token_bytes)
    return _total_bits(log_probs) / chars


def _no_minus_sign(log_probs, token_bytes):
    """Sums the log-probabilities as they are: a negative number of bits."""
    return sum(log_probs) / math.log(2) / _n_bytes(token_bytes)


def _abs_of_each(log_probs, token_bytes):
    """Right, with the sign taken off each log-probability instead of the sum."""
    return sum(abs(lp) for lp in log_probs) / math.log(2) / _n_bytes(token_bytes)


def _times_ln2(log_probs, token_bytes):
    """Multiplies by ln 2 where it should divide."""
    return -sum(log_probs) * math.log(2) / _n_bytes(token_bytes)


def _log10(log_probs, token_bytes):
    """Converts with ln 10 instead of ln 2."""
    return -sum(log_probs) / math.log(10) / _n_bytes(token_bytes)


def _mean_of_ratios(log_probs, token_bytes):
    """The mean over tokens of each token's bits over its bytes: every token weighs the same."""
    return sum(-lp / math.log(2) / len(t) for lp, t in zip(log_probs, token_bytes)) / len(log_probs)


def _per_token_first(log_probs, token_bytes):
    """Right, the other way round: bits per token over bytes per token."""
    tokens = len(log_probs)
    return (_total_bits(log_probs) / tokens) / (_n_bytes(token_bytes) / tokens)


def _bpb_with_numpy(log_probs, token_bytes):
    """Right, with numpy: a numpy float is a number."""
    return -np.sum(log_probs) / np.log(2) / sum(len(t) for t in token_bytes)


def test_right_answers_written_otherwise_pass():
    for right in (_per_token_first, _bpb_with_numpy, _abs_of_each):
        assert check("12.bits_per_byte", right).passed, right.__name__
        assert check("12.bits_per_byte", right, seed=7).passed, right.__name__


def test_the_bpb_toys_are_worked_by_hand():
    found = cases("12.bits_per_byte")
    assert [c.expected for c in found[:8]] == pytest.approx(
        [1.0, 1.0, 1.0, 4 / 3, 0.0, 1 / 3, 8.0, 5 / 9], rel=1e-12)
    assert found[3].args[1] == [b"\xe4\xb8", b"\xad"]  # one character in two tokens


@pytest.mark.parametrize("seed", [None, 3])
def test_bpb_cases_are_the_library_and_real_runs_are_the_chapters_bigram_model(seed):
    found = cases("12.bits_per_byte", seed)
    for case in found:
        log_probs, token_bytes = case.args
        assert len(log_probs) == len(token_bytes)
        b"".join(token_bytes).decode("utf-8")  # the tokens of a text: whole characters
        assert case.expected == bits_per_byte.from_loss(
            -math.fsum(log_probs) / len(log_probs), len(log_probs), _n_bytes(token_bytes))
    real = found[-len(BPB_RUNS):]
    starts = exercises.ch12._starts(seed)
    for (name, corpus), case in zip(BPB_RUNS, real):  # the run it says it is, the library's bpb
        log_probs, token_bytes, library = exercises.ch12._scored(name, corpus, starts[corpus])
        assert case.args == (log_probs, token_bytes)
        assert case.expected == pytest.approx(library, rel=1e-12)
        assert 1 < case.expected < 5 and 100 < len(log_probs) < 1000
    texts = [b"".join(c.args[1]) for c in real]  # the same text under two tokenizers
    assert texts[0] == texts[1] and texts[2] == texts[3]
    assert len(texts[2].decode()) < len(texts[2]) / 2  # Lu Xun: mostly 3-byte characters
    cl100k, qwen = real[2:]  # on Lu Xun: far apart per token, close per byte
    assert _per_token(*qwen.args) / _per_token(*cl100k.args) > 1.2
    assert abs(qwen.expected / cl100k.expected - 1) < 0.1


def test_bpb_real_cases_score_the_lines_after_the_training_lines():
    lines = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    scored = b"".join(cases("12.bits_per_byte")[-1].args[1])
    sizes = [len("".join(lines[TRAIN_LINES:TRAIN_LINES + k]).encode()) for k in range(1, 20)]
    k = next(k for k, size in enumerate(sizes, 1) if size >= exercises.ch12.HELD_OUT_BYTES)
    assert scored == "".join(lines[TRAIN_LINES:TRAIN_LINES + k]).encode()


def test_bpb_hidden_cases_score_other_lines():
    public = [c.args for c in cases("12.bits_per_byte")[-len(BPB_RUNS):]]
    hidden = [c.args for c in cases("12.bits_per_byte", 3)[-len(BPB_RUNS):]]
    assert all(a != b for a, b in zip(public, hidden))


# --- 12.token_script ------------------------------------------------------------------------------

def _script(token, *, skip_space=True, han=None, digit=None, latin=None, punct=None,
            errors="strict"):
    """The reference's rules with one of them replaced (the holes below)."""
    import unicodedata

    import regex

    try:
        text = token.decode("utf-8", errors)
    except UnicodeDecodeError:
        return "partial"
    kinds = set()
    for ch in text:
        if skip_space and ch.isspace():
            continue
        category = unicodedata.category(ch)
        if (han or (lambda c: regex.match(r"\p{Han}", c)))(ch):
            kinds.add("han")
        elif (digit or (lambda c: category == "Nd"))(ch):
            kinds.add("digit")
        elif (latin or (lambda c: category.startswith("L") and regex.match(r"\p{Latin}", c)))(ch):
            kinds.add("latin")
        elif (punct or (lambda c: category[0] in "PS"))(ch):
            kinds.add("punctuation")
        else:
            kinds.add("other")
    if not kinds:
        return "whitespace"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _leading_space_only(token):
    """Drops the leading whitespace only: 'a b' and ' ),\\n' become mixed."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "partial"
    return _script(text.lstrip().encode("utf-8"), skip_space=False)


def _whitespace_counted(token):
    """Counts spaces as 'other' unless the token is nothing but spaces: ' the' is mixed."""
    try:
        blank = not token.decode("utf-8").strip()
    except UnicodeDecodeError:
        return "partial"
    return "whitespace" if blank else _script(token, skip_space=False)


def _decodes_with_replacement(token):
    """errors='replace': a partial token becomes U+FFFD, a symbol."""
    return _script(token, errors="replace")


def _isdigit(token):
    """str.isdigit: ² and ³ (category No) count as digits."""
    return _script(token, digit=str.isdigit)


def _isalpha(token):
    """Any letter is Latin: Привет, の and α too."""
    return _script(token, latin=str.isalpha)


def _ascii_letters(token):
    """Only a-z and A-Z are Latin: é, ß and Ａ are not."""
    return _script(token, latin=lambda c: c.isascii() and c.isalpha())


def _punctuation_only(token):
    """Only P*, not S*: $, + and emoji become 'other'."""
    import unicodedata

    return _script(token, punct=lambda c: unicodedata.category(c).startswith("P"))


def _with_is_han(token):
    """Right, with characters.is_han, as the recipe allows."""
    from tutorial_lib.text.characters import is_han

    return _script(token, han=is_han)


def test_calling_is_han_is_allowed_with_the_library_blocked():
    assert check("12.token_script", _with_is_han, block_library=True).passed
    assert check("12.token_script", _with_is_han, seed=7, block_library=True).passed


@pytest.mark.parametrize("seed", [None, 3])
def test_script_cases_are_the_library_and_cover_every_script(seed):
    found = cases("12.token_script", seed)
    assert all(c.expected == model_tokenizers.token_script(c.args[0]) for c in found)
    assert all(c.args[0] for c in found)  # no empty entry
    assert {c.expected for c in found} == set(model_tokenizers.SCRIPTS) - {"special"}
    real = [c for c in found if c.args[0] not in {t if isinstance(t, bytes) else t.encode()
                                                  for t in exercises.ch12.SCRIPT_TOKENS}]
    assert len(real) >= 45
    assert len({c.expected for c in real}) >= 7
    for name in VOCABULARIES:  # each vocabulary gives entries of several scripts
        entries = _entries(name)
        assert len({c.expected for c in real if c.args[0] in entries}) >= 5, name


def _entries(name):
    segmenter, found = model_tokenizers.load(name), set()
    for i in range(segmenter.vocab_size):
        try:
            found.add(segmenter.token_bytes(i))
        except (KeyError, ValueError):
            pass  # a gap in cl100k's ids
    return found


def test_script_hidden_cases_draw_other_entries():
    public = {c.args for c in cases("12.token_script")}
    hidden = {c.args for c in cases("12.token_script", 3)}
    assert len(hidden - public) >= 40


# --- all three: each plausible mistake fails; graded as the classroom grades them -----------------

PLAUSIBLE_MISTAKES = [
    ("12.premium_summary", wrong) for wrong in (
        ch12.WRONG_ANSWERS["premium_summary"], _with_p90(_nearest_rank), _with_p90(_lower_rank),
        _with_p90(_rank_of_n), _middle_without_averaging, _english_over_lang, _median_of_counts)
] + [
    ("12.bits_per_byte", wrong) for wrong in (
        ch12.WRONG_ANSWERS["bits_per_byte"], _per_token, _per_character,
        _characters_of_each_token, _no_minus_sign, _times_ln2, _log10, _mean_of_ratios)
] + [
    ("12.token_script", wrong) for wrong in (
        ch12.WRONG_ANSWERS["token_script"], _leading_space_only, _whitespace_counted,
        _decodes_with_replacement, _isdigit, _isalpha, _ascii_letters, _punctuation_only)
]


@pytest.mark.parametrize("key, wrong", PLAUSIBLE_MISTAKES, ids=lambda v: getattr(v, "__name__", v))
def test_public_and_hidden_cases_reject_each_plausible_mistake(key, wrong):
    assert not check(key, wrong).passed
    assert not check(key, wrong, seed=7).passed
