"""The document-mask explorer of chapter 09 redraws from doc_masks when any of its controls changes."""

import numpy as np
import pytest

from tutorial_lib import widgets
from tutorial_lib.packing import doc_masks


def explorer(**kwargs):
    box = widgets.document_mask_explorer({"短": [3, 2, 4, 5], "长": [30, 2]}, **kwargs)
    corpus, kind, shown = box.children
    slider, view = shown.children
    return corpus, kind, slider, view


def test_row_holds_the_documents_that_fit_whole():
    corpus, kind, slider, view = explorer(initial_length=8)
    assert "2 / 3" in view.value  # 3 + 2 fit, 4 does not: 3 positions of padding
    assert "0 0 0 1 1 -1 -1 -1" in view.value and "0 1 2 0 1 0 0 0" in view.value
    assert "[0, 3, 5]" in view.value and "40%" in view.value  # the 2 tokens of the second document of 5


def test_every_control_redraws():
    corpus, kind, slider, view = explorer(initial_length=8)
    assert 'class="leak"' not in view.value
    kind.value = "因果"
    assert 'class="leak"' in view.value and 'class="pad"' in view.value
    slider.value = 14
    assert "4 / 0" in view.value  # 3 + 2 + 4 + 5 = 14
    corpus.value = "长"
    assert "0 / 14" in view.value  # the first document is longer than the row


def test_mask_cells_follow_the_mask_kind():
    ids = np.array([0, 1, -1])
    assert widgets.mask_cells(ids, "因果") == [["d0", "off", "off"], ["leak", "d1", "off"], ["pad", "pad", "pad"]]
    assert widgets.mask_cells(ids, "因果+填充") == [["d0", "off", "off"], ["leak", "d1", "off"], ["off"] * 3]
    cells = widgets.mask_cells(ids, "文档掩码")
    allowed = [[c != "off" for c in row] for row in cells]
    assert allowed == doc_masks.document_mask(ids).tolist()


@pytest.mark.parametrize("kwargs, error", [
    ({"initial_length": 99}, ValueError),
    ({"max_length": 1}, ValueError),
])
def test_bad_settings(kwargs, error):
    with pytest.raises(error):
        explorer(**kwargs)


def test_bad_lengths():
    with pytest.raises(ValueError):
        widgets.document_mask_explorer({})
    with pytest.raises(ValueError):
        widgets.document_mask_explorer({"x": [3, 0]})
    with pytest.raises(ValueError):
        widgets.mask_cells(np.array([0, 1]), "没有这种")
