"""onig_regex: our split patterns in Oniguruma (Hugging Face's regex engine) cut text as ours do."""

import unicodedata

import pytest
import regex
from tokenizers import Regex, pre_tokenizers

from tutorial_lib import data
from tutorial_pipeline.interop.onig_regex import from_oniguruma, to_oniguruma
from tutorial_lib.bpe.pretokenize import PATTERNS, pretokenize
from tutorial_lib.bpe.tiktoken_probe import every_character

EVERY_CHARACTER = every_character()


def hf_pieces(pattern, text):
    split = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
    return [piece for piece, _ in split.pre_tokenize_str(text)]


def test_gpt2_and_nanochat_are_unchanged_and_gpt4s_digit_groups_become_atomic():
    assert to_oniguruma(PATTERNS["gpt2"]) == PATTERNS["gpt2"]
    assert to_oniguruma(PATTERNS["nanochat"]) == PATTERNS["nanochat"]
    gpt4 = to_oniguruma(PATTERNS["gpt4"])
    assert r"(?>\p{N}{1,3})" in gpt4 and r"\s++\Z" in gpt4
    text = data.load_text("code_sample")[:20_000] + " 1234567 \n\n x  \r\n"
    for pattern in PATTERNS.values():  # back in the regex module it cuts as before
        assert pretokenize(text, from_oniguruma(to_oniguruma(pattern))) == pretokenize(text, pattern)


def test_why_gpt4s_pattern_needs_rewriting():
    """In Oniguruma `X{1,3}+` is X{1,3} repeated, so digits would stay in one piece."""
    assert hf_pieces(PATTERNS["gpt4"], "1234567") == ["1234567"]
    assert hf_pieces(to_oniguruma(PATTERNS["gpt4"]), "1234567") == ["123", "456", "7"]


@pytest.mark.parametrize("name", PATTERNS)
@pytest.mark.parametrize("corpus", [c.name for c in data.list_corpora()])
def test_the_pieces_are_ours_on_every_corpus(name, corpus):
    text = data.load_text(corpus)[:20_000]
    assert hf_pieces(to_oniguruma(PATTERNS[name]), text) == pretokenize(text, name)


@pytest.mark.parametrize("pattern, text", [(r"^a|a$", "a\na\n"), (r"a\Z|\s", "a\na"),
                                           (r"[$^]|\s", "$ ^")])
def test_anchors_mean_the_same(pattern, text):
    assert hf_pieces(to_oniguruma(pattern), text) == [p for p in _ours(pattern, text)]


def _ours(pattern, text):
    """Ours with the gaps kept, as Hugging Face's Isolated split keeps them."""
    pieces, end = [], 0
    for match in regex.finditer(pattern, text):
        pieces += [text[end:match.start()]] * (match.start() > end) + [match.group()]
        end = match.end()
    return pieces + [text[end:]] * (end < len(text))


def test_flags_other_than_i_are_refused():
    for pattern in [r"(?s:.)", r"(?m)^a", r"(?x) a"]:
        with pytest.raises(ValueError, match="flags other than i"):
            to_oniguruma(pattern)
    assert to_oniguruma(r"(?i:ab)|(?i)c") == r"(?i:ab)|(?i)c"


def test_oniguruma_reads_letters_and_numbers_like_tiktoken():
    """Pinned by constraints.txt (regex 2026.11.19, tokenizers 0.23.3): 17,144 letters and 336
    numbers of the regex module are unassigned for Python 3.11 and not letters or numbers for
    Oniguruma; chapter 05's U+0C5C is one of them."""
    missing = []
    for char_class in (r"\p{L}", r"\p{N}"):
        split = pre_tokenizers.Split(Regex(char_class), behavior="removed")
        left = set("".join(piece for piece, _ in split.pre_tokenize_str(EVERY_CHARACTER)))
        theirs = set(EVERY_CHARACTER) - left
        ours = set(regex.findall(char_class, EVERY_CHARACTER))
        assert theirs <= ours and {unicodedata.category(c) for c in ours - theirs} == {"Cn"}
        missing.append(ours - theirs)
    assert [len(m) for m in missing] == [17144, 336] and "\u0c5c" in missing[0]
