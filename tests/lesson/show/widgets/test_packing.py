"""The widgets of chapters 07-10 redraw from library results when a control changes."""

import re

import ipywidgets
import numpy as np
import pytest

from tutorial_lib.show import palette
from tutorial_lib.packing import batch, gpt_samples, masks, megatron, strategies
from tutorial_lib.packing.masks import PAD_DOC
from tutorial_lib.show.widgets import rendered
from tutorial_lib.show.widgets.packing import (batch_grid_html, bucketing_explorer, document_mask_explorer, mask_grid_html, packed_rows_html, packing_explorer, sample_explorer, sample_html, sequence_explorer, sequence_html)
from tutorial_lib.bpe.trainer import train_tokenizer

LENGTHS = {"长短混合": [1, 40, 2, 38, 3, 36, 4, 34] * 4, "一样长": [5] * 20}


def shares(html: str) -> dict[str, str]:
    return dict(re.findall(r"<td [^>]*>(随机分批|按长度分桶|全局排序)</td><td [^>]*>([\d.]+%)</td>", html))


def test_the_explorer_shows_the_library_padding_shares_and_follows_each_control():
    corpus, how, width, size, view = bucketing_explorer(LENGTHS, batch_size=4, bucket_width=8).children
    lengths = LENGTHS["长短混合"]
    assert shares(view.value) == {
        "随机分批": f"{batch.random_batches(lengths, 4).padding_share:.1%}",
        "按长度分桶": f"{batch.bucketed_batches(lengths, 4, 8).padding_share:.1%}",
        "全局排序": f"{batch.sorted_batches(lengths, 4).padding_share:.1%}",
    }
    before = view.value
    width.value = 64  # one bucket holds every length: as much padding as random batching
    assert shares(view.value)["按长度分桶"] != shares(before)["按长度分桶"]
    size.value = 1  # one row per batch: nothing to pad
    assert set(shares(view.value).values()) == {"0.0%"}
    how.value = "随机分批"
    assert "随机分批的前几批" in view.value
    corpus.value = "一样长"
    size.value = 3
    assert set(shares(view.value).values()) == {"0.0%"} and "第 1 批：3 行 × 5 个位置，填充 0%" in view.value


def test_the_grid_draws_real_and_padding_widths_in_proportion():
    lengths = [10, 5, 0]
    html = batch_grid_html(lengths, batch.Batching([[0, 1], [2]], 15, 20), width_px=100)
    assert re.findall(r"width:(\d+)px", html) == ["100", "0", "50", "50", "0", "0"]
    assert "第 1 批：2 行 × 10 个位置，填充 25%" in html and "第 2 批：1 行 × 0 个位置，填充 0%" in html
    assert re.findall(r"background:(#\w+)", html) == [palette.DOCUMENTS[0], palette.PADDING] * 2 + [
        palette.DOCUMENTS[1], palette.PADDING]  # alternate batches in the first two document colours


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one corpus"):
        bucketing_explorer({})
    with pytest.raises(ValueError, match=r"lengths_by_corpus\['a'\]\[0\] must be an int >= 0"):
        bucketing_explorer({"a": [-1]})
    with pytest.raises(ValueError, match="batch_size must be an int in"):
        bucketing_explorer({"a": [1]}, batch_size=0)
    with pytest.raises(TypeError, match="batching must be a Batching"):
        batch_grid_html([1], [[0]])


def explorer(**kwargs):
    box = document_mask_explorer({"短": [3, 2, 4, 5], "长": [30, 2]}, **kwargs)
    corpus, kind, slider, view = box.children
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


def grid(html: str) -> list[list[str]]:
    """The cell classes of the mask grid in `html`, row by row."""
    table = re.search(r'<table class="mg".*?</table>', html).group(0)
    return [re.findall(r'<td class="(\w+)">', row) for row in re.findall(r"<tr>(.*?)</tr>", table)]


def test_the_grid_draws_the_library_cells_of_each_mask():
    ids = np.array([0, 1, PAD_DOC])
    cells = {kind: masks.mask_cells(ids, masks.row_mask(ids, kind)) for kind in masks.KINDS}
    assert grid(mask_grid_html(cells["causal"])) == [["d0", "off", "off"], ["leak", "d1", "off"],
                                                     ["pad", "pad", "pad"]]
    # keys only, as in chapter 07: the padding query keeps the real keys before it
    assert grid(mask_grid_html(cells["causal_padding"])) == [["d0", "off", "off"], ["leak", "d1", "off"],
                                                             ["pad", "pad", "off"]]
    allowed = [[c != "off" for c in row] for row in grid(mask_grid_html(cells["document"]))]
    assert allowed == masks.document_mask(ids).tolist()
    assert f".mg .leak{{background:{palette.LEAK}}}" in mask_grid_html(cells["causal"])
    with pytest.raises(TypeError, match="cells must be a masks.Cells"):
        mask_grid_html([["d0"]])


def test_the_explorer_grid_is_the_library_mask_of_its_row():
    corpus, kind, slider, view = explorer(initial_length=8)
    ids = masks.whole_documents([3, 2, 4, 5], 8)
    for label, name in [("因果", "causal"), ("因果+填充", "causal_padding"), ("文档掩码", "document")]:
        kind.value = label
        assert grid(view.value) == grid(mask_grid_html(masks.mask_cells(ids, masks.row_mask(ids, name))))


@pytest.mark.parametrize("kwargs, error", [
    ({"initial_length": 99}, ValueError),
    ({"max_length": 1}, ValueError),
])
def test_bad_settings(kwargs, error):
    with pytest.raises(error):
        explorer(**kwargs)


def test_bad_lengths():
    with pytest.raises(ValueError):
        document_mask_explorer({})
    with pytest.raises(ValueError):
        document_mask_explorer({"x": [3, 0]})
    with pytest.raises(ValueError):
        document_mask_explorer({"x": [3]}, initial_length=0)


@pytest.fixture(scope="module")
def tok():
    return train_tokenizer(["hello world, hello there"] * 5, 270, special_tokens=["<|endoftext|>"])


@pytest.fixture
def dataset(tmp_path, tok):
    eot = tok.special_tokens["<|endoftext|>"]
    texts = ["hello", "hello world, hello there", "there"]
    return megatron.write_dataset(tmp_path / "ds", [tok.encode(t) + [eot] for t in texts])


def test_sequence_html_gives_length_pointer_range_and_tokens(dataset, tok):
    html = sequence_html(dataset, tok, 1)
    length, pointer = int(dataset.sequence_lengths[1]), int(dataset.sequence_pointers[1])
    assert pointer == 2 * int(dataset.sequence_lengths[0])
    assert f"{length} 个 token" in html and f"[{pointer}, {pointer + 2 * length})" in html
    assert f"全部 {length} 个 token" in html and html.endswith("&lt;|endoftext|&gt;</span></span>")


def test_sequence_html_cuts_long_sequences_and_names_the_document(dataset, tok):
    html = sequence_html(dataset, tok, 1, max_tokens=2)
    assert "前 2 个 token" in html
    assert '文档编号</td><td style="text-align:left">1<' in html
    assert html.count('<span title="id') == 2


def test_slider_redraws(dataset, tok):
    box = sequence_explorer(dataset, tok)
    picker, view = box.children
    slider, number = picker.children
    assert slider.max == number.max == 2 and "[0, " in view.value
    slider.value = 2
    assert number.value == 2 and f"[{int(dataset.sequence_pointers[2])}, " in view.value
    number.value = 1  # the box beside the slider moves it, and the view follows
    assert slider.value == 1 and f"[{int(dataset.sequence_pointers[1])}, " in view.value


def test_bad_input(dataset, tok, tmp_path):
    with pytest.raises(ValueError):
        sequence_html(dataset, tok, 3)
    with pytest.raises(TypeError):
        sequence_explorer([1, 2], tok)
    with pytest.raises(ValueError, match="no sequences"):
        sequence_explorer(megatron.write_dataset(tmp_path / "empty", []), tok)


@pytest.fixture
def samples(dataset, tok):
    eot = tok.special_tokens["<|endoftext|>"]
    return {"Megatron": gpt_samples.GPTSamples(dataset, 4, eod_id=eot, reset_position_ids=True, eod_mask_loss=True),
            "BFD": gpt_samples.PackedSamples(dataset, 4)}


def test_sample_html_has_one_row_per_document_run(samples, tok):
    megatron_sample = samples["Megatron"].sample(0)
    html = sample_html(samples["Megatron"], tok, 0)
    runs = 1 + int((megatron_sample.document_ids[1:] != megatron_sample.document_ids[:-1]).sum())
    assert f"4 个输入 token，{runs} 段" in html
    assert html.count("<tr>") == runs + 1  # the header and one row per run
    packed = sample_html(samples["BFD"], tok, len(samples["BFD"]) - 1)
    rows = samples["BFD"].sample(len(samples["BFD"]) - 1)
    assert ("填充" in packed) == bool((rows.document_ids == PAD_DOC).any())


def test_sample_explorer_follows_both_controls(samples, tok):
    box = sample_explorer(samples, tok)
    how, picker, view = box.children
    slider, number = picker.children
    assert slider.max == number.max == min(len(s) for s in samples.values()) - 1
    first = view.value
    how.value = "BFD"
    assert view.value == rendered(lambda i: sample_html(samples["BFD"], tok, i), 0)
    number.value = 1
    assert slider.value == 1 and "样本 1" in view.value and view.value != first


def test_sample_explorer_refuses_bad_input(tok):
    with pytest.raises(ValueError, match="at least one"):
        sample_explorer({}, tok)
    with pytest.raises(TypeError):
        sample_explorer({"x": [1, 2]}, tok)


def test_rows_html_draws_segments_padding_and_cuts():
    html = packed_rows_html(strategies.pad([5, 2], 4))
    assert "共 3 行" in html and "利用率 58.3%" in html and "填充 5 个" in html
    cut = f"border-right:3px solid {palette.CUT}"
    assert html.count(cut) == 1  # document 0's first chunk goes on in the next row
    assert html.count(f"border-left:2px dashed {palette.CUT}") == 1  # ... and its second chunk continues it
    assert html.count('title="填充') == 2 and html.count(f"background:{palette.PADDING}") == 2
    crop = packed_rows_html(strategies.bestfit_crop([5], 4))
    assert "丢弃 1 个 token（20.0%）" in crop and cut in crop


def test_rows_html_draws_each_document_in_its_palette_colour():
    result = strategies.greedy([3, 2, 4] * 4, 8)
    html = packed_rows_html(result)
    drawn = re.findall(r'title="文档 (\d+)：[^"]*" style="[^"]*background:(#\w+)', html)
    assert [int(doc) for doc, _ in drawn] == [s.doc for r in range(result.n_rows) for s in result.segments(r)]
    assert all(color == palette.DOCUMENTS[int(doc) % len(palette.DOCUMENTS)] for doc, color in drawn)
    assert len({color for _, color in drawn}) == len(palette.DOCUMENTS)  # 12 documents: every colour


def test_rows_html_shows_at_most_max_rows():
    html = packed_rows_html(strategies.pad([1] * 20, 4), max_rows=3)
    assert "前 3 行，共 20 行" in html and html.count('style="display:flex') == 3
    assert "没有行" in packed_rows_html(strategies.pad([], 4))


def test_explorer_follows_strategy_length_and_corpus():
    explorer = packing_explorer({"短": [1, 2, 3] * 10, "长": [7, 9]}, seq_lens=(4, 8))
    (strategy, corpus), seq_len, view = explorer.children[0].children, explorer.children[1], explorer.children[2]
    assert strategy.value == "bfd" and "共 15 行" in view.value
    strategy.value = "pad"
    assert "共 30 行" in view.value
    seq_len.value = 8
    corpus.value = "长"
    assert "共 3 行" in view.value and "利用率 66.7%" in view.value  # 7 | 8 | 1: the 9 is split at the row end


def test_explorer_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one corpus"):
        packing_explorer({})
    with pytest.raises(ValueError, match=r"lengths_by_corpus\['a'\]\[0\] must be an int >= 1"):
        packing_explorer({"a": [0]})


def _controls(box):
    """Every control inside a box of boxes, depth first."""
    for child in box.children:
        yield from _controls(child) if hasattr(child, "children") else [child]


def test_toggle_buttons_have_their_label_beside_them_like_the_other_controls():
    """ipywidgets 8 puts a ToggleButtons' description above its buttons unless it has the row
    class the sliders and dropdowns have; `live` gives it to every control it watches."""
    boxes = [packing_explorer({"短": [1, 2, 3]}, seq_lens=(4, 8)),
             document_mask_explorer({"短": [3, 2, 4, 5]})]
    toggles = [c for box in boxes for c in _controls(box) if isinstance(c, ipywidgets.ToggleButtons)]
    assert toggles  # the strategy explorer's row length, the mask explorer's mask
    assert all("widget-inline-hbox" in toggle._dom_classes for toggle in toggles)


def test_the_chosen_toggle_button_carries_a_check_mark_and_only_it():
    """In the dark theme the chosen button's shade barely differs from the others: the mark does."""
    box = document_mask_explorer({"短": [3, 2, 4, 5]})
    toggle = next(c for c in _controls(box) if isinstance(c, ipywidgets.ToggleButtons))
    for option in [*toggle.options[::-1], toggle.options[0]]:
        toggle.value = option
        assert [icon == "check" for icon in toggle.icons] == [o == option for o in toggle.options]
