"""The sliders, text boxes and dropdowns of the notebooks, built on one helper, `live`.

Results go into an HTML widget (not an Output widget), so the stored output is the same in
JupyterLab and under nbval, and a value the library refuses shows its error message in place of
the result: the widget keeps working. Each part's widgets live beside this module."""

from __future__ import annotations

import html
from typing import Callable

import ipywidgets as w

# JupyterLab styles tables in ordinary cell outputs but not inside a widget's HTML, where the
# columns would run together; this class gives them the same look, aligned left like the controls.
_STYLED = '<div class="jp-RenderedHTMLCommon" style="padding-left:0">{}</div>'


def live(render: Callable[..., str], *controls: w.ValueWidget) -> w.HTML:
    """An HTML view of `render(*values)` of `controls`, redrawn when any of them changes."""
    view = w.HTML()

    def redraw(_change: object = None) -> None:
        view.value = rendered(render, *(control.value for control in controls))

    for control in controls:
        if isinstance(control, w.ToggleButtons):
            # ipywidgets 8 puts a ToggleButtons' label above its buttons; the row class that
            # sliders and dropdowns carry puts it beside them, like theirs
            control.add_class("widget-inline-hbox")
            # a check mark on the chosen button: in the dark theme its shade alone barely differs
            control.observe(_mark_chosen, names="value")
            _mark_chosen({"owner": control})
        control.observe(redraw, names="value")
    redraw()
    return view


def _mark_chosen(change: dict) -> None:
    buttons = change["owner"]
    buttons.icons = ["check" if i == buttons.index else "" for i in range(len(buttons.options))]


def rendered(render: Callable[..., str], *values: object) -> str:
    """`render(*values)` styled for a widget, or the error message where the result would be."""
    try:
        return _STYLED.format(render(*values))
    except (TypeError, ValueError) as e:
        return _STYLED.format(f'<p style="color:#b00">{html.escape(str(e))}</p>')
