"""normalization_effect: two tokenizers that differ only in NFKC, measured on Chinese lines."""

import pytest

from tutorial_lib import data
from tutorial_lib.text.measure import compression
from tutorial_lib.contract.normalization_effect import form_effect, trained_pair


@pytest.fixture(scope="module")
def pair():
    return trained_pair([data.load_text("luxun")[:20_000]], 400)


def test_the_pair_differs_only_in_the_form(pair):
    without, with_nfkc = pair
    assert (without.normalization, with_nfkc.normalization) == ("none", "NFKC")
    assert without.pattern == with_nfkc.pattern and without.merges != with_nfkc.merges
    # trained on normalized text: the full-width comma's bytes are never merged into a token
    assert "，".encode() not in with_nfkc.vocab.values()
    assert "，".encode() in without.vocab.values()


def test_form_effect_by_hand(pair):
    without, with_nfkc = pair
    lines = ["我说，你好！", "我们走了", ""]
    [row] = form_effect(without, with_nfkc, {"toy": lines})
    assert row.corpus == "toy" and row.lines == 2  # the empty line is skipped
    assert row.changed_lines == 0.5  # the line with "，" and "！" changes, the other does not
    assert row.bytes_per_token_with == compression(with_nfkc.encode, lines[:2]).bytes_per_token
    raw = [len(without.encode(line)) for line in lines[:2]]
    assert row.tokens_per_line == sum(raw) / 2
    assert row.tokens_per_line_normalized == (len(without.encode("我说,你好!")) + raw[1]) / 2


def test_form_effect_refuses_a_wrong_pairing(pair):
    without, with_nfkc = pair
    with pytest.raises(ValueError, match="without normalization and one with it"):
        form_effect(with_nfkc, without, {"toy": ["a"]})
    with pytest.raises(ValueError, match="normalization"):
        trained_pair(["a"], 300, form="NFD")
