"""docs/glossary.md, held to the notebooks: every entry points at a chapter and a heading that
exist, its term is used in that chapter, its Chinese names are the course's own, and the table is
sorted."""

import functools
import json
import re
from pathlib import Path

import pytest

from tutorial_course import chapters

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "glossary.md"
HEADER = ["English", "中文", "释义", "首次讲解"]
NONE = "—"  # the 中文 column when the notebooks use only the English term
INTRO = "导言"  # the text of a chapter before its first numbered section
REF = re.compile(rf"第 (\d{{2}}) 章 (?:{INTRO}|§(\d+(?:\.\d+)*) (.+))")
HEADING = re.compile(r"#{2,6}\s+(\d+(?:\.\d+)*)\.?\s+(.+)")
CHAPTERS = {c.number: c for c in chapters.CHAPTERS}


def cells(row: str) -> list[str]:
    """A table row's cells; `\\|` is a pipe inside a cell (GitHub's escape)."""
    inner = row.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def entries() -> list[list[str]]:
    lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("|") and cells(line) == HEADER)
    rows = []
    for line in lines[start + 2:]:  # after the header and its |---| line
        if not line.startswith("|"):
            break
        rows.append(cells(line))
    return rows


ENTRIES = entries()


def term(entry: list[str]) -> str:
    return entry[0].replace("`", "")


def chinese_names(entry: list[str]) -> list[str]:
    return [] if entry[1] == NONE else entry[1].split("／")


def sort_key(text: str) -> str:
    """Alphabetical, case ignored, leading symbols (the dot of `.bin/.idx`) ignored."""
    return re.sub(r"^[^0-9a-z]+", "", text.casefold())


@functools.cache
def markdown(stem: str) -> str:
    """The prose of a notebook: its markdown cells, joined."""
    nb = json.loads((chapters.NOTEBOOK_DIR / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@functools.cache
def headings(stem: str) -> dict[str, str]:
    """Section number → title of a notebook's numbered headings (## 2. 标题, ### 2.1 标题)."""
    found: dict[str, str] = {}
    for line in markdown(stem).splitlines():
        if m := HEADING.fullmatch(line.strip()):
            found.setdefault(m.group(1), m.group(2).strip())
    return found


def test_glossary_is_a_full_table():
    assert 40 <= len(ENTRIES) <= 80, len(ENTRIES)
    for entry in ENTRIES:
        assert len(entry) == len(HEADER) and all(entry), entry


def test_terms_are_sorted_and_unique():
    keys = [sort_key(term(e)) for e in ENTRIES]
    assert keys == sorted(keys), [t for t, s in zip(keys, sorted(keys)) if t != s][:3]
    assert len(set(keys)) == len(keys), sorted(k for k in keys if keys.count(k) > 1)


@pytest.mark.parametrize("entry", ENTRIES, ids=term)
def test_entry_is_taught_where_it_says(entry):
    ref = REF.fullmatch(entry[3])
    assert ref, f"{entry[3]!r} is not 第 NN 章 §N 标题 (or 第 NN 章 {INTRO})"
    number, section, title = ref.groups()
    assert number in CHAPTERS, f"no chapter {number} in tutorial_course/chapters.py"
    chapter = CHAPTERS[number]
    assert chapter.available, f"chapter {number} has no notebook"
    if section is not None:
        assert headings(chapter.stem).get(section) == title, (
            f"{chapter.stem} has no heading {section} {title!r} "
            f"(its {section} is {headings(chapter.stem).get(section)!r})")
    text = markdown(chapter.stem).casefold()
    names = [term(entry), *chinese_names(entry)]
    assert any(name.casefold() in text for name in names), f"none of {names} in {chapter.stem}"


@functools.cache
def course_prose() -> str:
    return "\n".join(markdown(c.stem) for c in chapters.CHAPTERS if c.available)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if chinese_names(e)], ids=term)
def test_chinese_names_are_the_courses(entry):
    for name in chinese_names(entry):
        assert name in course_prose(), f"{name!r} is not used in any notebook"


def test_every_notebook_opens_with_a_link_to_the_glossary():
    """From notebooks/ and from workspace/ alike (both one level under the root), and in the
    student kit, which carries docs/."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        first = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])
        assert "](../docs/glossary.md)" in first, path.name
    assert (ROOT / "docs" / "glossary.md").is_file()
