"""The sliders, text boxes and dropdowns of the notebooks, built on one helper, `live`.

A widget is some controls and one view: `live(render, *controls)` shows `render(*values)` and
redraws it whenever a control changes (and lays its toggle buttons out like the other
controls). `render` only calls library functions and lays their results out as HTML; the
computing happens in the library, where the tests can reach it.

Results are written into an HTML widget (not printed into an Output widget), so the stored notebook
output is the same in JupyterLab, under `make notebooks` and under nbval. A value the library
refuses (say, a lone surrogate pasted into a text box) shows its error message in place of the
result: the widget keeps working.

The widgets of one half live beside this module: `widgets.tokenization` (chapters 00-06) and
`widgets.packing` (chapters 07-10); chapter 13's (the tokenizer as a contract) are
`widgets.contract`.
"""

from __future__ import annotations

import html
from typing import Callable

import ipywidgets as w

# JupyterLab styles tables in ordinary cell outputs but not inside a widget's HTML, where the
# columns would
# run together; this class gives them the same look, aligned left like the controls above them.
_STYLED = '<div class="jp-RenderedHTMLCommon" style="padding-left:0">{}</div>'


def live(render: Callable[..., str], *controls: w.ValueWidget) -> w.HTML:
    """An HTML view of `render(*values)`, the values of `controls` in order, redrawn when any
    changes."""
    view = w.HTML()
    for control in controls:
        label_beside(control)

    def redraw(_change: object = None) -> None:
        view.value = rendered(render, *(control.value for control in controls))

    for control in controls:
        control.observe(redraw, names="value")
    redraw()
    return view


def label_beside(control: w.ValueWidget) -> w.ValueWidget:
    """Put a ToggleButtons' description to the left of its buttons, as sliders and dropdowns have
    theirs; every other control is returned as it is.

    ipywidgets 8 draws a ToggleButtons' label on a line of its own above the buttons; the class the
    other controls carry gives it their row layout and their right-aligned label column. `live`
    does this for every control it watches, so no widget has to remember to.
    """
    if isinstance(control, w.ToggleButtons):
        control.add_class("widget-inline-hbox")
    return control


def rendered(render: Callable[..., str], *values: object) -> str:
    """`render(*values)` styled for a widget, or the library's error message where the result would
    be."""
    try:
        return _STYLED.format(render(*values))
    except (TypeError, ValueError) as e:
        return _STYLED.format(f'<p style="color:#b00">{html.escape(str(e))}</p>')
