"""The merge explorer of notebook 06 shows what trainer_stages.merge_work recorded, merge by merge."""

import pytest

from tutorial_lib import widgets
from tutorial_lib.tokenization.trainer_stages import merge_work

WORKS = {"英文": merge_work(["ab ab ab xab xab cab"], 258), "中文": merge_work(["人工智能，人工"], 259)}
DISTINCT = {"英文": 4, "中文": 3}


def test_html_shows_the_pair_the_words_and_the_work():
    html = widgets.merge_work_html(WORKS["英文"][0], 1, 4)
    assert "第 1 次合并" in html and "4 / 4（100.0%）" in html
    assert html.count("<tr>") == 1 + 6 + 1 + 3  # header + 6 rows, header + 3 example words
    assert ">␣</span>" in html and ">ab</span>" in html  # " xab" after the merge: ␣ x ab, whitespace visible
    assert "<td style=\"text-align:left\">4</td><td" in html and ">3</td></tr>" in html  # " xab": 4 -> 3 tokens


def test_explorer_follows_corpus_and_merge():
    explorer = widgets.merge_work_explorer(WORKS, DISTINCT)
    (corpus, step), view = explorer.children[0].children, explorer.children[1]
    assert step.max == 2 and "第 1 次合并" in view.value
    step.value = 2
    assert "第 2 次合并" in view.value
    corpus.value = "中文"
    assert step.max == 3 and "/ 3（" in view.value


def test_explorer_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one corpus"):
        widgets.merge_work_explorer({}, {})
    with pytest.raises(ValueError, match="works key"):
        widgets.merge_work_explorer(WORKS, {"英文": 4})
    with pytest.raises(ValueError, match="distinct_words"):
        widgets.merge_work_html(WORKS["英文"][0], 1, 1)
