"""Chapter 12's premium explorer: the spread, the chosen sentence in it, and its tokens."""

import re

import pytest

from tutorial_lib import data
from tutorial_lib.evaluation.evaluate import flores_premiums
from tutorial_lib.show.widgets.evaluation import premium_explorer, spread_html
from tutorial_lib.text import model_tokenizers

LANGS = ["zho_Hans", "tha_Thai"]


@pytest.fixture(scope="module")
def explorer():
    segmenters = [model_tokenizers.load("gpt2"), model_tokenizers.load("cl100k")]
    premiums = flores_premiums(segmenters, LANGS)
    return premium_explorer(segmenters, premiums, LANGS), premiums


def test_the_spread_counts_every_sentence_and_marks_the_chosen_bin():
    ratios = [0.6, 1.0, 1.1, 2.0, 2.1, 2.2, 9.0]
    page = spread_html(ratios, 2.1)
    counts = [int(n) for n in re.findall(r"</span> (\d+)</td>", page)]
    assert sum(counts) == len(ratios)
    red = re.search(r">([^<>]+)</td><td[^>]*><span[^>]*#d62728[^>]*></span> (\d+)", page)
    assert red.groups() == ("2–2.8", "3")  # 2.0, 2.1 and 2.2 share the bin [2, 2.83)
    assert page.count("<tr>") == 9  # from the first bin holding a sentence to the last


def test_moving_the_controls_shows_that_sentence_and_its_english_original(explorer):
    box, premiums = explorer
    (tokenizer, lang), sentence, view = box.children[0].children, box.children[1], box.children[2]
    tokenizer.value, lang.value, sentence.value = "cl100k", "tha_Thai", 7
    premium = next(p for p in premiums if (p.tokenizer, p.lang) == ("cl100k", "tha_Thai"))
    assert f"这一句 {premium.ratios[7]:.2f}" in view.value
    assert f"中位数 {premium.median:.2f}" in view.value
    segmenter = model_tokenizers.load("cl100k")
    for text in (data.load_parallel("tha_Thai")[7], data.load_parallel("eng_Latn")[7]):
        assert re.search(rf"<td[^>]*>{len(segmenter.encode(text))}</td>", view.value)


def test_a_missing_pair_is_named(explorer):
    _, premiums = explorer
    with pytest.raises(ValueError, match="every tokenizer with every language"):
        premium_explorer([model_tokenizers.load("gpt2")], premiums, ["jpn_Jpan"])
