"""The sequence explorer of chapter 10 reads each sequence's place in .bin from the .idx arrays."""

import pytest

from tutorial_lib import widgets
from tutorial_lib.packing import gpt_samples, megatron
from tutorial_lib.tokenization.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.train(["hello world, hello there"] * 5, 270, special_tokens=["<|endoftext|>"])


@pytest.fixture
def dataset(tmp_path, tok):
    eot = tok.special_tokens["<|endoftext|>"]
    texts = ["hello", "hello world, hello there", "there"]
    return megatron.write_dataset(tmp_path / "ds", [tok.encode(t) + [eot] for t in texts])


def test_sequence_html_gives_length_pointer_range_and_tokens(dataset, tok):
    html = widgets.sequence_html(dataset, tok, 1)
    length, pointer = int(dataset.sequence_lengths[1]), int(dataset.sequence_pointers[1])
    assert pointer == 2 * int(dataset.sequence_lengths[0])
    assert f"{length} 个 token" in html and f"[{pointer}, {pointer + 2 * length})" in html
    assert f"全部 {length} 个 token" in html and html.endswith("&lt;|endoftext|&gt;</span></span>")


def test_sequence_html_cuts_long_sequences_and_names_the_document(dataset, tok):
    html = widgets.sequence_html(dataset, tok, 1, max_tokens=2)
    assert "前 2 个 token" in html
    assert '文档编号</td><td style="text-align:left">1<' in html
    assert html.count('<span title="id') == 2


def test_slider_redraws(dataset, tok):
    box = widgets.sequence_explorer(dataset, tok)
    slider, view = box.children
    assert slider.max == 2 and "[0, " in view.value
    slider.value = 2
    assert f"[{int(dataset.sequence_pointers[2])}, " in view.value


def test_bad_input(dataset, tok, tmp_path):
    with pytest.raises(ValueError):
        widgets.sequence_html(dataset, tok, 3)
    with pytest.raises(TypeError):
        widgets.sequence_explorer([1, 2], tok)
    with pytest.raises(ValueError, match="no sequences"):
        widgets.sequence_explorer(megatron.write_dataset(tmp_path / "empty", []), tok)


@pytest.fixture
def samples(dataset, tok):
    eot = tok.special_tokens["<|endoftext|>"]
    return {"Megatron": gpt_samples.GPTSamples(dataset, 4, eod_id=eot, reset_position_ids=True, eod_mask_loss=True),
            "BFD": gpt_samples.PackedSamples(dataset, 4)}


def test_sample_html_has_one_row_per_document_run(samples, tok):
    megatron_sample = samples["Megatron"].sample(0)
    html = widgets.sample_html(samples["Megatron"], tok, 0)
    runs = 1 + int((megatron_sample.document_ids[1:] != megatron_sample.document_ids[:-1]).sum())
    assert f"4 个输入 token，{runs} 段" in html
    assert html.count("<tr>") == runs + 1  # the header and one row per run
    packed = widgets.sample_html(samples["BFD"], tok, len(samples["BFD"]) - 1)
    rows = samples["BFD"].sample(len(samples["BFD"]) - 1)
    assert ("填充" in packed) == bool((rows.document_ids == -1).any())


def test_sample_explorer_follows_both_controls(samples, tok):
    box = widgets.sample_explorer(samples, tok)
    how, (slider, view) = box.children[0], box.children[1].children
    assert slider.max == min(len(s) for s in samples.values()) - 1
    first = view.value
    how.value = "BFD"
    assert view.value == widgets._render(lambda i: widgets.sample_html(samples["BFD"], tok, i), 0)
    slider.value = 1
    assert "样本 1" in view.value and view.value != first


def test_sample_explorer_refuses_bad_input(tok):
    with pytest.raises(ValueError, match="at least one"):
        widgets.sample_explorer({}, tok)
    with pytest.raises(TypeError):
        widgets.sample_explorer({"x": [1, 2]}, tok)
