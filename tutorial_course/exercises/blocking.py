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

A fresh copy of a twin is refused too, in a forked child: re-executing its module
(`importlib.reload`, `exec_module` under another name), compiling its source, unmarshalling its
bytecode or building a code object from it. The child gets an audit hook (`sys.addaudithook`, which
sees every `compile`, `exec`, `marshal.loads` and `code.__new__`) that compares what comes into
being with the twins' fingerprints: their bytecode and the global names they use, which renaming
the function or its variables leaves as they were. The hook cannot be removed, so only a child that
is thrown away gets it, never the kernel; the original code objects are not kept there. A twin of
fewer than MIN_BYTECODE bytes of bytecode (a line or two) has no fingerprint: anyone may write it
the same way. A copy edited by hand is the learner's own code.
"""

from __future__ import annotations

import importlib
import marshal
import os
import sys
import types
from typing import Any, Callable, Iterator

HITS: list[str] = []  # the twins called in this process since `clear()`: read by the checker
MIN_BYTECODE = 100  # bytes: a shorter twin (a wrapper, a formula) has no fingerprint


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


def fingerprint(code: types.CodeType) -> tuple:
    """What a copy keeps when the source is renamed: the bytecode, the global and attribute names
    it uses, and the same of every function defined inside it."""
    return (code.co_code, code.co_names,
            tuple(fingerprint(c) for c in code.co_consts if isinstance(c, types.CodeType)))


def _codes_within(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes_within(const)


class CopyGuard:
    """The audit hook that refuses a fresh copy of a twin (see the module docstring)."""

    def __init__(self, twins: dict[str, types.FunctionType]) -> None:
        codes = {name: fn.__code__ for name, fn in twins.items()
                 if len(fn.__code__.co_code) >= MIN_BYTECODE}
        self.fingerprints = {fingerprint(code): name for name, code in codes.items()}
        self.bytecodes = {code.co_code: name for name, code in codes.items()}
        self.busy = False  # while the hook compiles or unmarshals itself

    def __call__(self, event: str, args: tuple) -> None:
        if self.busy or event not in ("compile", "exec", "marshal.loads", "code.__new__"):
            return
        self.busy = True
        try:
            if event == "code.__new__":  # only the raw bytecode is known yet
                name = self.bytecodes.get(args[0]) if isinstance(args[0], bytes) else None
            else:
                name = next((self.fingerprints[f] for code in self._made(event, args)
                             for c in _codes_within(code)
                             if (f := fingerprint(c)) in self.fingerprints), None)
        finally:
            self.busy = False
        if name is not None:
            raise hit(name)

    @staticmethod
    def _made(event: str, args: tuple) -> Iterator[types.CodeType]:
        """The code objects the event is about to run or make (what compile would make of the
        source; nothing where it cannot be compiled the way we try)."""
        try:
            if event == "exec" and isinstance(args[0], types.CodeType):
                yield args[0]
            elif event == "marshal.loads":
                loaded: Any = marshal.loads(args[0])
                if isinstance(loaded, types.CodeType):
                    yield loaded
            elif event == "compile" and args[0] is not None:
                yield compile(args[0], "<guard>", "exec", dont_inherit=True)
        except Exception:  # not code in a form we can compile: the real call decides
            return


def prepare(names: tuple[str, ...]) -> Callable[[], Callable[[], None]]:
    """Resolve the twins now (in the parent, so a bad name is an error here, not a broken child)
    and return `block`: called in the child, it swaps every twin's code, guards against copies
    (in a forked child only) and returns `restore`."""
    plan = [(fn, _refusing_code(name, fn)) for name in names for fn in [resolve(name)]]
    guard = CopyGuard({name: fn for name, (fn, _) in zip(names, plan)})
    parent = os.getpid()

    def block() -> Callable[[], None]:
        forked = os.getpid() != parent
        saved = [] if forked else [(fn, fn.__code__) for fn, _ in plan]
        for fn, code in plan:
            fn.__code__ = code
        if forked:
            sys.addaudithook(guard)
        clear()

        def restore() -> None:
            for fn, code in saved:
                fn.__code__ = code
            clear()
        return restore
    return block
