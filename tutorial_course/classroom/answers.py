"""The reference solution of an exercise as the body of the notebook's own function.

The release puts it between `### BEGIN SOLUTION` and `### END SOLUTION` inside the stub's `def`, so
the student version (nbgrader's ClearSolutions) shows the stub and the instructor's source the
answer, under the signature the notebook gives. A reference in solutions/chNN.py may use names of
its module: an import, a constant or a helper function. Those are written into the body too (an
import or an assignment, a nested `def`), found by reading the module's source; the names of the
chapter's other exercises stay as they are, since the notebook defines them in earlier cells (the
student's own versions, as in the notebook). A reference parameter the notebook's signature lacks
(it has a default) becomes an assignment of that default.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from tutorial_course import exercises

ROOT = Path(__file__).resolve().parents[2]  # the repository, which holds solutions/


def solutions_module(key: str):
    """solutions/chNN.py of the exercise's chapter, from the repository this library is in (an
    installed copy of the library has no solutions: releasing needs a clone)."""
    name = f"solutions.ch{key.split('.', 1)[0]}"
    if name in sys.modules:
        return sys.modules[name]
    path = ROOT / "solutions" / f"{name.split('.')[1]}.py"
    if not path.is_file():
        raise ValueError(f"key: {key!r} has no reference solution at {path} (release from a clone "
                         "of the repository, which has solutions/)")
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))  # so the module's own imports resolve as in the tests
    return importlib.import_module(name)


def reference(key: str) -> Callable:
    return getattr(solutions_module(key), exercises.REGISTRY[key].function_name)


def _module_statements(source: str) -> dict[str, str]:
    """Each name the module binds at the top (import, assignment, def) -> the statement's text."""
    tree, found = ast.parse(source), {}
    for node in tree.body:
        text = ast.get_source_segment(source, node) or ""
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                if isinstance(node, ast.Import):
                    found[name] = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname
                                                            else "")
                else:
                    found[name] = (f"from {'.' * node.level}{node.module or ''} import "
                                   f"{alias.name}" + (f" as {alias.asname}" if alias.asname
                                                      else ""))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = text
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = text
    return found


def _free_names(node: ast.AST) -> set[str]:
    """Names a function reads that it does not bind itself (a generous guess: any Name loaded)."""
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    loaded = {n.id for n in names if isinstance(n.ctx, ast.Load)}
    bound = {n.id for n in names if isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(node) if isinstance(n, ast.arguments)
              for a in n.args + n.kwonlyargs + n.posonlyargs + [n.vararg, n.kwarg] if a}
    return loaded - bound - set(dir(builtins))


def _needed(fn_node: ast.FunctionDef, statements: dict[str, str], chapter_functions: set[str],
            own: str) -> list[str]:
    """The module statements the function needs, helpers' own needs first, each once."""
    order: list[str] = []

    def visit(node: ast.AST) -> None:
        for name in sorted(_free_names(node)):
            if name in chapter_functions or name == own or name not in statements:
                continue
            text = statements[name]
            if text in order:
                continue
            parsed = ast.parse(text).body[0]
            if isinstance(parsed, (ast.FunctionDef, ast.ClassDef)):
                visit(parsed)
            if text not in order:
                order.append(text)

    visit(fn_node)
    return order


def solution_body(key: str, notebook_params: list[str]) -> str:
    """The lines (not indented) that make the notebook's `def` compute the reference answer."""
    module = solutions_module(key)
    source = inspect.getsource(module)
    fn = reference(key)
    fn_node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    chapter = key.split(".", 1)[0]
    chapter_functions = {e.function_name for k, e in exercises.REGISTRY.items()
                         if k.startswith(chapter + ".")}
    lines = _needed(fn_node, _module_statements(source), chapter_functions, fn.__name__)
    for name, parameter in inspect.signature(fn).parameters.items():
        if name not in notebook_params:
            if parameter.default is inspect.Parameter.empty:
                raise ValueError(f"{key}: the reference's parameter {name!r} is not in the "
                                 "notebook's signature and has no default")
            lines.append(f"{name} = {parameter.default!r}")
    body = fn_node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring explains the reference to the tests, not to the student
    fn_source = textwrap.dedent(inspect.getsource(fn))
    fn_lines = fn_source.splitlines()
    first, last = body[0].lineno - 1, fn_node.end_lineno
    lines.append(textwrap.dedent("\n".join(fn_lines[first:last])))
    return "\n".join(lines)
