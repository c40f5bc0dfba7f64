"""Library twins: the tutorial_lib functions that compute an exercise's answer, made to refuse.

The checker's expected values come from the library (one definition of each concept), so a learner
can pass 02.train by returning `bpe_toy.train(corpus, n).merges`. With `check(...,
block_library=True)` each twin of the exercise is replaced, in the forked child only, by a
function that records the call and raises `LibraryBlocked`; the case that called it fails with a
message naming the function. The expected values were computed in the parent before the fork, and
the kernel's own functions are never touched. (Without fork, on Windows, the cases run in a thread
of the kernel: there the twins are blocked for the check and restored after it.)

The replacement swaps the function's `__code__`, not the module attribute: a learner who wrote
`from tutorial_lib.bpe.bpe_toy import train` before the check holds the same function
object, so that name is caught too. A classmethod or method is named by its class
(`...tokenizer.Tokenizer.encode`) and the function under it is patched. The code that raises is
compiled with the twin's free variables (a method that uses `super()` has one), because Python
only lets a function take a code object with as many.

Blocking stops the plain call, not a learner set on getting the library's answer: the function
runs with the whole library importable, so re-executing a twin's module (`importlib.reload`) or
copying its source gives an unblocked copy. That takes deliberate work, which a teacher reading
the submission sees; hiding expected values (`exercises.runner`) needs no such reading.
"""

from __future__ import annotations

import importlib
import types
from typing import Callable

HITS: list[str] = []  # the twins called in this process since `clear()`: read by the checker


class LibraryBlocked(BaseException):
    """Raised by a blocked twin. A BaseException, so a learner's `except Exception` does not hide
    it (the call is recorded in HITS anyway)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} 在这个练习里不能调用")
        self.name = name


def hit(name: str) -> LibraryBlocked:
    """Record a call of twin `name` and return the exception the twin raises."""
    HITS.append(name)
    return LibraryBlocked(name)


def clear() -> None:
    HITS.clear()


def resolve(name: str) -> types.FunctionType:
    """The plain function a dotted name means: a module-level function, or the function under a
    class's method, classmethod or staticmethod ("pkg.module.Class.method")."""
    if not isinstance(name, str):
        raise TypeError(f"a library twin must be a str, not {type(name).__name__}")
    if not name.startswith(("tutorial_lib.", "tutorial_course.")):
        raise ValueError(f"library twin {name!r} must be a dotted name under tutorial_lib (or "
                         "tutorial_course, for what builds the cases)")
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            owner = target
            target = getattr(target, attr, None)
            if isinstance(owner, type):  # the raw classmethod/staticmethod, not a bound method
                target = owner.__dict__.get(attr, target)
        target = getattr(target, "__func__", target)
        if isinstance(target, types.FunctionType):
            return target
        raise ValueError(f"library twin {name!r} is not a function: {type(target).__name__}")
    raise ValueError(f"library twin {name!r}: no module of it can be imported")


def _refusing_code(name: str, fn: types.FunctionType) -> types.CodeType:
    """A code object that calls `hit(name)` and raises, with `fn`'s free variables (both
    compilers list them sorted by name)."""
    free = fn.__code__.co_freevars
    source = (f"def _outer():\n    {' = '.join(free + ('None',))}\n" if free else "def _outer():\n")
    source += ("    def _blocked(*args, **kwargs):\n"
               + (f"        if kwargs is None:  # never: only names the free variables\n"
                  f"            {', '.join(free)}\n" if free else "")
               + "        import tutorial_course.exercises.blocking as _blocking\n"
               f"        raise _blocking.hit({name!r})\n"
               "    return _blocked\n")
    scope: dict = {}
    exec(compile(source, f"<blocked {name}>", "exec"), scope)  # noqa: S102 - our own source
    code = scope["_outer"]().__code__
    if code.co_freevars != free:
        raise ValueError(f"library twin {name!r}: cannot match its free variables {free}")
    return code.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)


def prepare(names: tuple[str, ...]) -> Callable[[], Callable[[], None]]:
    """Resolve the twins now (in the parent, so a bad name is an error here, not a broken child)
    and return `block`: called in the child, it swaps every twin's code and returns `restore`."""
    plan = [(fn, _refusing_code(name, fn)) for name in names for fn in [resolve(name)]]

    def block() -> Callable[[], None]:
        saved = [(fn, fn.__code__) for fn, _ in plan]
        for fn, code in plan:
            fn.__code__ = code
        clear()

        def restore() -> None:
            for fn, code in saved:
                fn.__code__ = code
            clear()
        return restore
    return block
