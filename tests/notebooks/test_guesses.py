"""A "先猜一猜" shows its answer only after the learner has written `my_guess`, in every notebook.

A guess is a code cell `my_guess = None  # ...` under a markdown prompt that says **先猜一猜**;
the next code cell reveals it with `display.guess(my_guess, measured, what)`. The notebooks are
stored with `my_guess = None`, so `display.guess` keeps the measurement inside a <details> fold and
the stored outputs show what a learner sees before guessing. Anything else that shows the
measurement first spoils the guess:

- the guess is not asked (no 先猜一猜 right before it) or not revealed by the next code cell;
- the reveal cell prints a table, a plot or a line besides the fold (the number is right there);
- a code cell between the guess and the reveal prints the value or draws it;
- the prose just before the guess, or between it and the reveal, states the value as the fold shows
  it (a yes/no answer stated in words cannot be found by value: `STATED_IN_WORDS` lists the
  sentences that once gave such answers away, so they do not come back);
- the example in the guess cell's comment is the answer itself.

Results that should come after the reveal go into a cell after it.
"""

import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tutorial_lib.show import display

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

GUESS = re.compile(r"^my_guess\s*=", re.MULTILINE)
REVEAL = re.compile(r"\bdisplay\.guess\(\s*my_guess\b")
PROMPT = "先猜一猜"
FOLD = re.compile(r"<details><summary>.*?</summary>.*?<td[^>]*>实测（(?P<what>.*)）</td>"
                  r"<td[^>]*>(?P<shown>.*?)</td>", re.DOTALL)
# A number as prose writes it: 7, 1,024, 0.523, 52.3 (then maybe %); not part of a name or of a
# longer number (x2, GPT-2, 3.14159, v1.2.3), not an ordinal (第 6 节)
NUMBER = re.compile(r"(?<![0-9A-Za-z_.,])(?<![A-Za-z0-9]-)(?<!第)(?<!第 )"
                    r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![0-9A-Za-z_]|\.\d|,\d)\s*([%％])?")

# Answers the value check cannot see: (notebook, the guess's `what`) -> sentences that state the
# answer in words. They may come after the reveal, never before it.
STATED_IN_WORDS = {
    ("09_document_masks", "OneHead：只加掩码能否与单独运行相同"):
        (r"位置编号.{0,2}在每篇文档处重新开始", r"掩码和位置编号缺一不可", r"非重排不可"),
    ("09_document_masks", "RopeHead：只加掩码能否与单独运行相同"):
        (r"只要文档掩码", r"RoPE）?的头则不需要", r"文档掩码就够"),
}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    return "".join(cell["source"])


def is_code(cell: dict) -> bool:
    return cell["cell_type"] == "code" and bool(source(cell).strip())


@dataclass
class Guess:
    """One guess: the indices of its guess cell and its reveal, and what the fold shows."""

    notebook: str
    cells: list
    guess: int
    reveal: int | None  # the first later cell calling display.guess(my_guess, ...), if any
    next_code: int | None  # the first later code cell

    @property
    def where(self) -> str:
        return f"{self.notebook} {self.name(self.guess)}"

    def name(self, k: int) -> str:
        """A cell by index and id (the id survives cells added above it)."""
        return f"cell {k} (id {self.cells[k].get('id')})"

    @property
    def fold(self) -> tuple[str, str] | None:
        """(what, the measurement as shown) from the reveal's stored fold, or None."""
        for out in [] if self.reveal is None else self.cells[self.reveal]["outputs"]:
            match = FOLD.search("".join(out.get("data", {}).get("text/html", "")))
            if match:
                return html.unescape(match["what"]), html.unescape(match["shown"])
        return None

    def between(self, kind: str) -> list[int]:
        """Indices of the `kind` cells after the guess, up to the reveal (or the next code cell)."""
        end = self.reveal if self.reveal is not None else self.next_code
        end = len(self.cells) if end is None else end
        return [k for k in range(self.guess + 1, end) if self.cells[k]["cell_type"] == kind]

    def prompt(self) -> list[int]:
        """The markdown cells right before the guess cell (back to the previous code cell)."""
        k = self.guess - 1
        while k >= 0 and self.cells[k]["cell_type"] == "markdown":
            k -= 1
        return list(range(k + 1, self.guess))


def guesses(path: Path) -> list[Guess]:
    cells = load(path)["cells"]
    found = []
    for g, cell in enumerate(cells):
        if not (is_code(cell) and GUESS.search(source(cell))):
            continue
        later = [k for k in range(g + 1, len(cells)) if is_code(cells[k])]
        reveal = None
        for k in later:
            if GUESS.search(source(cells[k])):
                break
            if REVEAL.search(source(cells[k])):
                reveal = k
                break
        found.append(Guess(path.stem, cells, g, reveal, later[0] if later else None))
    return found


def states(text: str, shown: str) -> list[str]:
    """Where `text` states the measurement `shown` (as the fold shows it), with some context."""
    value = display.as_number(shown)
    if value is None:  # a word or a token: quoted or bold if short, as it is if longer
        word = re.escape(shown.strip())
        pattern = word if len(shown.strip()) >= 3 else rf"[“\"「`*]{word}[”\"」`*]"
        spans = [m.span() for m in re.finditer(pattern, text)]
    else:
        spans = []
        for m in NUMBER.finditer(text):
            number = float(m[1].replace(",", "") + (m[2] or ""))
            percent = bool(m[3])
            if math.isclose(number, value, rel_tol=1e-9) or \
                    (percent and math.isclose(number, 100 * value, rel_tol=1e-9)):
                spans.append(m.span())
    return [text[max(0, a - 15):b + 15].replace("\n", " ") for a, b in spans]


def output_text(out: dict) -> str:
    if out["output_type"] == "stream":
        return "".join(out["text"])
    data = out.get("data", {})
    text = "".join(data.get("text/plain", "")) + " " + "".join(data.get("text/html", ""))
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def no_problems(problems: list[str]) -> None:
    assert problems == [], "\n" + "\n".join(problems)


def test_there_are_guesses():
    assert sum(len(guesses(p)) for p in NOTEBOOKS) > 20


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_guess_is_posed(path):
    """The markdown right before `my_guess = None` asks the question (**先猜一猜**: ...)."""
    problems = []
    for g in guesses(path):
        if not any(PROMPT in source(g.cells[k]) for k in g.prompt()):
            earlier = [h.guess for h in guesses(path) if h.guess < g.guess]
            asked = [k for k in range(max(earlier, default=0), g.guess)
                     if PROMPT in source(g.cells[k])]
            further = f" (the nearest, {g.name(asked[-1])}, is further up)" if asked else ""
            problems.append(f"{g.where}: no {PROMPT} prompt in the markdown right before the "
                            f"guess{further}")
    no_problems(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_guess_is_revealed_by_the_next_code_cell(path):
    """`my_guess = None` (stored unguessed, printing nothing) and, as the next code cell,
    `display.guess(my_guess, ...)`; no reveal without a guess right before it."""
    problems = []
    for g in guesses(path):
        cell = g.cells[g.guess]
        if not re.search(r"^my_guess = None\b", source(cell), re.MULTILINE) or cell["outputs"]:
            problems.append(f"{g.where}: store the guess as `my_guess = None`, with no output")
        if g.reveal is None:
            problems.append(f"{g.where}: no cell uses this my_guess (display.guess(my_guess, ...))")
        elif g.reveal != g.next_code:
            problems.append(f"{g.where}: the next code cell, {g.name(g.next_code)}, is not the "
                            f"reveal ({g.name(g.reveal)}): 再运行下一格 must show the measurement")
    cells = load(path)["cells"]
    code = [k for k, c in enumerate(cells) if is_code(c)]
    for before, k in zip([None] + code, code):
        if REVEAL.search(source(cells[k])) and \
                (before is None or not GUESS.search(source(cells[before]))):
            problems.append(f"{path.stem} cell {k} (id {cells[k].get('id')}): display.guess("
                            "my_guess, ...) with no `my_guess = ...` cell right before it")
    no_problems(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_reveal_shows_only_the_fold(path):
    """The reveal's stored output is exactly display.guess(None, ...): no stream, no plot, no table,
    nothing before or after the fold."""
    problems = []
    for g in guesses(path):
        if g.reveal is None:
            continue
        outputs, fold = g.cells[g.reveal]["outputs"], g.fold
        if fold is None:
            problems.append(f"{g.where}: the reveal, {g.name(g.reveal)}, stores no folded "
                            "measurement")
            continue
        expected = display.guess(None, fold[1], fold[0]).data
        extra = [_describe(out) for out in outputs
                 if "".join(out.get("data", {}).get("text/html", "")) != expected]
        if extra or len(outputs) != 1:
            problems.append(f"{g.where}: the reveal, {g.name(g.reveal)}, shows more than the fold "
                            f"of {fold[0]} = {fold[1]}: {extra or 'the fold twice'}")
    no_problems(problems)


def _describe(out: dict) -> str:
    kinds = sorted(out.get("data", {})) or [out.get("name", "")]
    return f"{out['output_type']} {'/'.join(kinds)}: {output_text(out).strip()[:80]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_between_shows_the_answer(path):
    """A code cell between the guess and its reveal neither prints the value nor draws a figure."""
    problems = []
    for g in guesses(path):
        shown = g.fold[1] if g.fold else None
        for k in g.between("code"):
            for out in g.cells[k]["outputs"]:
                if any(kind.startswith("image/") for kind in out.get("data", {})):
                    problems.append(f"{g.where}: {g.name(k)}, before the reveal, draws a figure")
                elif shown is not None and states(output_text(out), shown):
                    problems.append(f"{g.where}: {g.name(k)}, before the reveal, prints {shown}: "
                                    f"{states(output_text(out), shown)}")
    no_problems(problems)


def prose_before_the_reveal(g: Guess) -> list[tuple[int, str]]:
    """(cell, text) a learner reads before the reveal: the markdown right before the guess (for a
    one-digit answer only its 先猜一猜 paragraph: elsewhere a 3 or a 0 is almost always about
    something else), the guess's comment unless it offers choices (或), the markdown between."""
    value = display.as_number(g.fold[1])
    small = value is not None and float(value).is_integer() and abs(value) < 10
    texts = []
    for k in g.prompt():
        text = source(g.cells[k])
        if small:
            text = "\n\n".join(p for p in re.split(r"\n\s*\n", text) if PROMPT in p)
        texts.append((k, text))
    comment = "".join(re.findall(r"#.*", source(g.cells[g.guess])))
    if "或" not in comment:
        texts.append((g.guess, comment))
    return texts + [(k, source(g.cells[k])) for k in g.between("markdown")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_prose_before_the_reveal_does_not_state_the_answer(path):
    """What a learner reads between the question and the reveal does not state the measurement as
    the fold shows it; no markdown before the reveal holds a sentence of STATED_IN_WORDS."""
    problems = []
    for g in guesses(path):
        if g.fold is None:
            continue
        what, shown = g.fold
        problems += [f"{g.where}: {g.name(k)} states the answer {shown} ({what}) before the "
                     f"reveal: {states(text, shown)}"
                     for k, text in prose_before_the_reveal(g) if states(text, shown)]
        for phrase in STATED_IN_WORDS.get((g.notebook, what), ()):
            problems += [f"{g.where}: {g.name(k)} answers {what!r} before the reveal: {phrase!r}"
                         for k in range(g.reveal) if g.cells[k]["cell_type"] == "markdown"
                         and re.search(phrase, source(g.cells[k]))]
    no_problems(problems)


def test_words_that_answer_name_real_guesses():
    """Each STATED_IN_WORDS entry names a guess that exists, so a renamed guess keeps its check."""
    folds = {(g.notebook, g.fold[0]) for p in NOTEBOOKS for g in guesses(p) if g.fold}
    assert sorted(set(STATED_IN_WORDS) - folds) == []


@pytest.mark.parametrize("text, shown, hit", [
    ("一共 1,024 个", "1024", True), ("占 52.3%。", "0.523", True),
    ("是 1.87 倍", "1.87", True), ("约 1.9 倍", "1.87", False), ("有 5 个", "5", True),
    ("第 5 节", "5", False), ("GPT-2", "2", False), ("3.14159 和 x2 与 v1.5", "5", False),
    ("答案是“不能”。", "不能", True), ("能不能相同？", "能", False),
    ("合并 `l + o`", "l + o", True), ("12,345,678", "345", False), ("0..L-1", "0", True),
    ("69.9%", "69.9%", True),
])
def test_states_finds_the_value_as_shown(text, shown, hit):
    assert bool(states(text, shown)) is hit


def _cell(kind: str, text: str, outputs: list | None = None) -> dict:
    cell = {"cell_type": kind, "source": [text], "metadata": {}, "id": f"c{abs(hash(text))}"}
    return cell | ({"outputs": outputs or [], "execution_count": 1} if kind == "code" else {})


def _fold_output(shown: str, what: str = "x") -> dict:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/html": display.guess(None, shown, what).data, "text/plain": "HTML"}}


def _notebook(tmp_path: Path, cells: list) -> Path:
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    return path


def test_a_clean_guess_passes(tmp_path):
    path = _notebook(tmp_path, [
        _cell("markdown", "**先猜一猜**：几个？"), _cell("code", "my_guess = None  # 例如 3"),
        _cell("code", "display.guess(my_guess, 7, 'x')", [_fold_output("7")]),
        _cell("markdown", "一共 7 个。"),
    ])
    for check in (test_each_guess_is_posed, test_each_guess_is_revealed_by_the_next_code_cell,
                  test_the_reveal_shows_only_the_fold, test_no_cell_between_shows_the_answer,
                  test_prose_before_the_reveal_does_not_state_the_answer):
        check(path)


@pytest.mark.parametrize("fault, check", [
    ("unposed", test_each_guess_is_posed),
    ("unused", test_each_guess_is_revealed_by_the_next_code_cell),
    ("gap", test_each_guess_is_revealed_by_the_next_code_cell),
    ("printed", test_the_reveal_shows_only_the_fold),
    ("plotted", test_the_reveal_shows_only_the_fold),
    ("drawn between", test_no_cell_between_shows_the_answer),
    ("printed between", test_no_cell_between_shows_the_answer),
    ("told", test_prose_before_the_reveal_does_not_state_the_answer),
    ("told earlier", test_prose_before_the_reveal_does_not_state_the_answer),
    ("example", test_prose_before_the_reveal_does_not_state_the_answer),
])
def test_each_fault_is_caught(tmp_path, fault, check):
    # a one-digit answer is looked for in the 先猜一猜 paragraph only, a longer one in the prompt
    n = "1,234" if fault == "told earlier" else "7"
    prompt = _cell("markdown", {"told": f"**先猜一猜**：一共 {n} 个？", "unposed": "想一想",
                                "told earlier": f"先量一量：一共 {n} 个。\n\n**先猜一猜**：几个？"}
                   .get(fault, "**先猜一猜**：几个？"))
    comment = f"例如 {n}" if fault == "example" else "一个整数"
    guess = _cell("code", f"my_guess = None  # {comment}")
    stream = {"output_type": "stream", "name": "stdout", "text": [f"总数 {n}\n"]}
    image = {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
    between = {"gap": [_cell("code", "n = 7")], "drawn between": [_cell("code", "plot()", [image])],
               "printed between": [_cell("code", "print(n)", [stream])]}.get(fault, [])
    outputs = [_fold_output(n)] + {"printed": [stream], "plotted": [image]}.get(fault, [])
    reveal = [] if fault == "unused" else \
        [_cell("code", "display.guess(my_guess, n, 'x')", outputs)]
    with pytest.raises(AssertionError):
        check(_notebook(tmp_path, [prompt, guess, *between, *reveal]))
