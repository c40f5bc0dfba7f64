"""Bring a newer version of a notebook into a learner's copy without touching the cells they edited.

A copy records, in its notebook metadata, a digest of every cell's source as it was shipped (by cell
id). That record is the common ancestor of a three-way merge, one cell at a time:

    learner's cell        newer version of it        result
    untouched             unchanged                  the learner's cell (its outputs stay)
    untouched             changed                    the new cell, outputs cleared
    untouched             removed                    dropped
    edited                unchanged                  the learner's cell
    edited                changed or removed         the learner's cell, and a conflict
    deleted               unchanged                  stays deleted
    deleted               changed                    stays deleted, and a conflict
    (none)                new                        inserted after the cell it follows
    the learner's own     -                          kept where it is

Cell and notebook metadata are the course's (nbgrader's grade ids and points, tags, the kernel):
the new version's keys win, keys only the learner's copy has (a collapsed output) stay. A conflict
never changes the copy: the caller writes the whole new version beside it. A copy made
before the record existed has no common ancestor, so every cell counts as edited: it is kept as it
is and any difference from the new version is a conflict. After a merge the record is the new
version's, so the next update compares against what the learner has now been shown.

Only the standard library: tutorial_course/workspace.py runs before the course's venv exists.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field

METADATA_KEY = "workspace"  # nb["metadata"]["workspace"]["shipped"] = {cell id: digest}


def source_of(cell: dict) -> str:
    """A cell's source as one string (nbformat stores it as a string or a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def digest(cell: dict) -> str:
    """A short digest of a cell's source: enough to tell an edited cell from an untouched one."""
    return hashlib.sha256(source_of(cell).encode("utf-8")).hexdigest()[:16]


def shipped_digests(nb: dict) -> dict[str, str]:
    """{cell id: digest} of a notebook as shipped (cells without an id cannot be tracked)."""
    return {cell["id"]: digest(cell) for cell in nb["cells"] if "id" in cell}


def record_shipped(nb: dict) -> dict:
    """Write into `nb`'s metadata the digests of its cells as they are now; return `nb`."""
    nb.setdefault("metadata", {}).setdefault(METADATA_KEY, {})["shipped"] = shipped_digests(nb)
    return nb


def recorded(nb: dict) -> dict[str, str] | None:
    """The digests recorded when the copy was shipped, or None for a copy made before the record."""
    shipped = nb.get("metadata", {}).get(METADATA_KEY, {}).get("shipped")
    return shipped if isinstance(shipped, dict) else None


def edited_cells(nb: dict) -> int | None:
    """How many shipped cells the learner has edited or deleted, plus cells they added; None if
    the copy has no record."""
    base = recorded(nb)
    if base is None:
        return None
    now = {cell.get("id"): digest(cell) for cell in nb["cells"]}
    return sum(now.get(i) != d for i, d in base.items()) + sum(i not in base for i in now)


@dataclass
class Merge:
    """What `merge` did: the merged notebook and the ids of the cells it touched, to report."""

    notebook: dict
    updated: list[str] = field(default_factory=list)  # untouched cells that took the new text
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # the new version is to be written beside
    legacy: bool = False  # the copy had no record: every cell counted as edited


def merge(mine: dict, new: dict) -> Merge:
    """Merge `new` (a fresh, cleared copy of the newer version) into the learner's copy `mine`.

    Neither argument is changed. See the module docstring for what happens to each cell.
    """
    base = recorded(mine)
    result = Merge(copy.deepcopy(mine), legacy=base is None)
    base = base or {}
    theirs = {cell["id"]: cell for cell in new["cells"] if "id" in cell}
    cells = []
    for cell in result.notebook["cells"]:
        cell_id = cell.get("id")
        kept = _merge_cell(cell, base.get(cell_id), theirs.get(cell_id), result)
        if kept is not None:
            cells.append(kept)
    _insert_new_cells(cells, new, base, result)
    differ = [source_of(c) for c in mine["cells"]] != [source_of(c) for c in new["cells"]]
    if result.legacy and differ and not result.conflicts:
        result.conflicts.append("*")  # no ancestor: any difference is the learner's to settle
    result.notebook["cells"] = cells
    metadata = {**result.notebook.get("metadata", {}), **copy.deepcopy(new.get("metadata", {}))}
    metadata[METADATA_KEY] = {"shipped": shipped_digests(new)}
    result.notebook["metadata"] = metadata
    return result


def _merge_cell(cell: dict, base: str | None, theirs: dict | None, result: Merge) -> dict | None:
    """The learner's `cell` after the merge, or None to drop it."""
    cell_id = cell.get("id")
    if base is None and not result.legacy:
        return cell  # the learner's own cell (or one without an id): theirs to keep
    if theirs is not None:
        cell["metadata"] = {**cell.get("metadata", {}), **copy.deepcopy(theirs.get("metadata", {}))}
    untouched = digest(cell) == base
    if theirs is None:  # the new version removed it
        if untouched:
            result.removed.append(cell_id)
            return None
        if base is not None:
            result.conflicts.append(cell_id)
        return cell
    if source_of(cell) == source_of(theirs) or digest(theirs) == base:
        return cell  # nothing new for this cell
    if untouched:
        result.updated.append(cell_id)
        return copy.deepcopy(theirs)
    result.conflicts.append(cell_id)  # both changed it: the learner's stays
    return cell


def _insert_new_cells(cells: list[dict], new: dict, base: dict[str, str], result: Merge) -> None:
    """Put each cell new in `new` after the cell it follows there (and after the learner's own cells
    that follow that one); cells the learner deleted stay deleted."""
    known = {cell["id"] for cell in new["cells"] if "id" in cell}
    present = {cell.get("id") for cell in cells}
    anchor = None  # the id of the last cell of `new` seen that is in `cells`
    for cell in new["cells"]:
        cell_id = cell.get("id")
        if cell_id in present:
            anchor = cell_id
            continue
        if cell_id in base:  # the learner deleted it
            if digest(cell) != base[cell_id]:
                result.conflicts.append(cell_id)
            continue
        if result.legacy:
            continue  # deleted or new: without a record nobody knows, so the conflict covers it
        at = 0 if anchor is None else _index(cells, anchor) + 1
        while at < len(cells) and cells[at].get("id") not in known:
            at += 1
        cells.insert(at, copy.deepcopy(cell))
        present.add(cell_id)
        result.added.append(cell_id)
        anchor = cell_id


def _index(cells: list[dict], cell_id: str) -> int:
    return next(i for i, cell in enumerate(cells) if cell.get("id") == cell_id)
