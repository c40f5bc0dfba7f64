"""The one token view: readable text per token, colored spans, byte tokens of one character grouped."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.show import display, palette


def test_show_token_makes_whitespace_and_partial_bytes_visible():
    assert display.show_token(" the\n") == "␣the\\n"
    assert display.show_token("世".encode()[:2]) == "\\xe4\\xb8"


@st.composite
def cut_text(draw):
    """A text and its UTF-8 bytes cut at arbitrary byte positions, as a byte-level tokenizer may cut them."""
    text = draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=20))
    data = text.encode("utf-8")
    cuts = sorted(draw(st.sets(st.integers(1, len(data) - 1), max_size=len(data) - 1)) if len(data) > 1 else [])
    return text, [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]


@given(cut_text())
def test_groups_are_the_smallest_runs_of_tokens_that_hold_whole_characters(case):
    text, tokens = case
    groups = display._groups(tokens)
    assert [k for g in groups for k in g] == list(range(len(tokens)))  # every token once, in order
    joined = [b"".join(tokens[k] for k in g).decode("utf-8") for g in groups]  # each group is whole characters
    assert "".join(joined) == text
    for g in groups:  # and no smaller split would be: every boundary inside a group cuts a character
        for cut in range(1, len(g)):
            with pytest.raises(UnicodeDecodeError):
                b"".join(tokens[k] for k in g[:cut]).decode("utf-8")


def test_token_html_groups_a_split_han_character_and_shows_ids_on_hover():
    view = display.token_html([b"\xe4\xb8", b"\x96", "界".encode(), b" <unk>"], [3574, 244, 98220, 7])
    assert view.count("<span title=") == 3  # 世 (two tokens), 界, " <unk>"
    assert ">世</span>" in view and "id 3574: \\xe4\\xb8 (e4 b8) | id 244: \\x96 (96)" in view
    assert "linear-gradient" in view  # the group is striped with its tokens' colors
    assert "␣&lt;unk&gt;" in view  # escaped, whitespace visible


def test_token_html_lets_a_line_break_between_tokens_but_not_inside_one():
    view = display.token_html([b"One", b" day", b" the"])
    assert view.count("<wbr>") == 2 and view.count("white-space:pre") == 3


def test_token_html_takes_text_tokens_and_checks_its_arguments():
    assert ">␣love</span>" in display.token_html(["i", " love"])
    with pytest.raises(ValueError, match="one id per token"):
        display.token_html([b"a", b"b"], [1])
    with pytest.raises(TypeError, match=r"tokens\[1\] must be bytes or str"):
        display.token_html([b"a", 3])
    with pytest.raises(TypeError, match="tokens must be a list"):
        display.token_html(None)


def test_tables_are_left_aligned_and_escape_all_but_markup():
    table = display.html_table(["a"], [["<b>"], [display.Markup("<i>x</i>")]])
    assert "&lt;b&gt;" in table and "<i>x</i>" in table
    assert table.count('style="text-align:left"') == 3


def test_token_spans_set_their_own_text_colour_with_their_light_background():
    view = display.token_html([b"One", b"\xe4\xb8", b"\x96"])
    assert view.count(f"color:{palette.TOKEN_INK}") == view.count("<span title=") == 2


def test_guess_hides_the_measurement_until_a_guess_is_written():
    shown = display.guess(None, 42, "token 数").data
    assert "你还没写下猜测" in shown
    before, folded = shown.split("<details>")
    assert "42" not in before and "实测" not in before  # nothing to read off before guessing
    assert f"<summary>{display.GIVE_UP}</summary>" in folded and "42" in folded


def test_guess_shows_the_prediction_beside_the_measurement():
    shown = display.guess(21, 42, "token 数").data
    assert "0.5 倍" in shown and "21" in shown and "42" in shown and "<details>" not in shown
    assert "猜中了" in display.guess("a", "a", "第一次合并").data
    assert "和实测不同" in display.guess("a", "b", "第一次合并").data
    with pytest.raises(TypeError, match="what must be a str"):
        display.guess(1, 2, None)


def test_guess_compares_numbers_as_numbers_and_shows_them_with_their_unit():
    assert "猜中了" in display.guess(95.5, "95.5%", "比例").data  # a measurement stored as text
    assert "猜中了" in display.guess("95.5%", 95.5, "比例", unit="%").data
    shown = display.guess(50, 95.5, "比例", unit="%", digits=1).data
    assert ">50%<" in shown and ">95.5%<" in shown and "0.52 倍" in shown
    assert ">12,345<" in display.guess(1, 12345, "字节数").data
    assert "1 倍" not in display.guess(0.99, 1, "x").data  # 0.99 倍, not a rounded "1 倍"
    assert "实测是 0" in display.guess(3, 0, "x").data
    assert [display.as_number(v) for v in ("1,024", " 3 倍", "abc", True, float("nan"))] == \
        [1024, 3, None, None, None]
    with pytest.raises(ValueError, match="digits"):
        display.guess(1, 2, "x", digits=-1)
