"""The chapter 09 plot: mask heatmaps coloured by what each cell lets a query see."""

import numpy as np
import pytest

from tutorial_lib import plotting
from tutorial_lib.packing import doc_masks

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_heatmap_titles_count_allowed_and_cross_document_cells():
    ids = [0, 0, 1, -1]
    causal = np.tril(np.ones((4, 4), dtype=bool))
    fig = plotting.mask_heatmaps({"因果": causal, "文档": doc_masks.document_mask(ids)}, ids, title="t")
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["因果\n允许 10 格，其中跨文档 2 格", "文档\n允许 4 格，其中跨文档 0 格"]


@pytest.mark.parametrize("masks, error", [
    ({"m": np.ones((3, 3), dtype=bool)}, ValueError),  # wrong shape for 4 positions
    ({"m": np.full((4, 4), 2)}, ValueError),  # neither bool nor 0/1
    ({"m": [[True]]}, ValueError),  # one position, the row has four
    ([np.ones((4, 4), dtype=bool)], TypeError),
])
def test_heatmap_refuses_masks_that_do_not_fit(masks, error):
    with pytest.raises(error):
        plotting.mask_heatmaps(masks, [0, 0, 1, -1], title="t")
