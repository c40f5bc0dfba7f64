import warnings

import matplotlib
import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting


def glyph_warnings(title: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title(title)
        ax.plot([-2, -1, 0], [0, -1, -2])
        fig.canvas.draw()
        plt.close(fig)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.fixture(autouse=True)
def restore_rcparams():
    with matplotlib.rc_context():
        yield


def test_the_check_detects_missing_glyphs():
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["font.sans-serif"] = ["DejaVu Sans"]
    assert glyph_warnings("中文标题")  # DejaVu has no Han glyphs: the detector must see that


@pytest.mark.parametrize("prefer_system", [True, False])
def test_chinese_title_renders_without_missing_glyphs(prefer_system):
    family = plotting.setup_chinese(prefer_system=prefer_system)
    assert family
    assert glyph_warnings("词表大小与序列长度：−1 和 -2") == []


def test_bundled_font_is_the_ofl_noto_file():
    path = plotting.bundled_font_path()
    assert path.name == "NotoSansSC-Regular.ttf"
    assert "Open Font License" in (path.parent / "OFL.txt").read_text(encoding="utf-8")


def test_bar_chart_checks_lengths():
    plotting.setup_chinese()
    with pytest.raises(ValueError, match="same length"):
        plotting.bar_chart(["a", "b"], [1.0], title="t", ylabel="y")
    fig = plotting.bar_chart(["中", "英"], [1.0, 0.5], title="标题", ylabel="比例", reference=1.0)
    assert fig.axes[0].get_title() == "标题"
    plt.close(fig)
