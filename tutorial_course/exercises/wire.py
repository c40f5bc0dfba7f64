"""What a learner's function returned, as it crosses from the process that ran it to the one that
judges it: a JSON literal of exact builtin and numpy types, never the object itself.

The process that runs the function cannot be trusted with the judging: an object whose `__eq__`
always says True, or a function that patches the comparison there, would pass anything. So that
process only encodes what it got (`encode`), and the checker decodes it (`decode`, no eval, no
pickle) into fresh objects of the library's own types before comparing. A value is encoded only if
its type is exactly one of: None, bool, int, float (nan and inf too), str, bytes, list, tuple,
dict, set, frozenset, collections.Counter / OrderedDict / defaultdict (of a builtin factory),
numpy.ndarray and numpy scalars (their dtype, shape and raw bytes; not of object, structured or
date dtypes), each recursively. Anything else, a subclass included, becomes a `Described`: its
type name and its short repr (`show`), equal to nothing but itself, so the checker still says
"类型不对：期望 dict，你返回了 MyDict" but no such object can pass for an expected value. The one
exception is an object the checker itself handed the function to record what the function did
with it (a type in `RECORDERS`, such as ch06's PairCounts, which counts its writes): it is sent as
the plain value its recorder gives, which a function could have returned as well.

The expected values never need encoding: they stay in the judging process (some are the exercise
modules' own types, such as ch04's ExactInt and ch09's _Bools, compared there as before).

Shape of the JSON: None, bools, ints, floats, strings and lists are themselves; every other value is
an object with one key naming its type, e.g. {"tuple": [...]}, {"bytes": "<base64>"}, {"dict":
[[key, value], ...]}, {"int": "<hex>"} (an int too long for decimal), {"ndarray": ["<i8", [2, 3],
"<base64>"]}, {"other": [type name, repr, is an iterator]}.
"""

from __future__ import annotations

import base64
import collections
import re
import reprlib
import sys
from collections.abc import Iterator
from typing import Any, Callable

# the defaultdict factories that can be rebuilt on the judging side, by name
FACTORIES = {f.__name__: f for f in (int, float, str, bytes, list, tuple, dict, set, frozenset)}
_MAPPINGS = {"dict": dict, "Counter": collections.Counter, "OrderedDict": collections.OrderedDict}
_SEQUENCES = {"tuple": tuple, "set": set, "frozenset": frozenset}
_INT_BITS = 10_000  # an int longer than this (about 3000 digits) goes as hex, which has no limit
_NUMPY_KINDS = "biufcSU"  # bool, ints, unsigned, floats, complex, bytes and str: plain data
# exact type -> what an instance is sent as (a plain value): filled in by the exercise modules
RECORDERS: dict[type, Callable[[Any], Any]] = {}


class _Repr(reprlib.Repr):
    """reprlib with room for an exercise's input, and no memory address or traceback from a
    learner's object."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 100
        self.maxlist = self.maxtuple = self.maxset = 12
        self.maxdict = 10

    def repr_dict(self, obj: dict, level: int) -> str:
        """A dict in its own order (reprlib sorts the keys): in a BPE corpus the word order decides
        ties."""
        if not obj:
            return "{}"
        if level <= 0:
            return "{...}"
        shown = list(obj.items())[: self.maxdict]
        items = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}" for k, v in shown]
        return "{" + ", ".join(items) + (", ..." if len(obj) > self.maxdict else "") + "}"

    def repr_instance(self, obj: Any, level: int) -> str:
        try:
            text = re.sub(r" at 0x[0-9A-Fa-f]+", "", repr(obj))
        except BaseException:  # even sys.exit() in a repr is only a broken repr
            return f"<{type(obj).__name__} 对象，它的 repr 出错了>"
        return text if len(text) <= self.maxother else text[: self.maxother - 3] + "..."


_REPR = _Repr()


def show(value: Any) -> str:
    """A short, safe repr of a learner's value or of a case's input."""
    try:
        return _REPR.repr(value)
    except BaseException:  # a container holding an object that breaks even reprlib
        return f"<{type(value).__name__} 对象>"


class Described:
    """A returned value that could not be encoded: its type's name and its short repr. It equals
    only itself, is no number, sequence or mapping, and shows as the repr it was sent with."""

    __slots__ = ("type_name", "text", "iterator")

    def __init__(self, type_name: str, text: str, iterator: bool) -> None:
        self.type_name, self.text, self.iterator = type_name, text, iterator

    def __repr__(self) -> str:
        return self.text


def type_name(value: Any) -> str:
    """The name of the type the learner's function returned (a Described's own)."""
    return value.type_name if type(value) is Described else type(value).__name__


def is_iterator(value: Any) -> bool:
    return value.iterator if type(value) is Described else issubclass(type(value), Iterator)


# --- the running side -----------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _numpy(value: Any) -> Any:
    """The encoding of an exact ndarray or numpy scalar of plain data, else None."""
    np = sys.modules.get("numpy")  # a value cannot be a numpy one if numpy was never imported
    if np is None:
        return None
    if type(value) is np.ndarray:
        if value.dtype.kind in _NUMPY_KINDS and value.dtype.itemsize:
            return {"ndarray": [value.dtype.str, list(value.shape), _b64(value.tobytes())]}
    elif isinstance(value, np.generic) and type(value) is np.dtype(type(value)).type:
        if value.dtype.kind in _NUMPY_KINDS and value.dtype.itemsize:
            return {"numpy": [value.dtype.str, _b64(np.asarray(value).tobytes())]}
    return None


def describe(value: Any) -> dict:
    """The encoding of a value that is not sent as itself: its type's name, its short repr."""
    kind = type(value)
    return {"other": [kind.__name__, show(value), issubclass(kind, Iterator)]}


def _encode(value: Any) -> Any:
    kind = type(value)
    if kind is int and value.bit_length() > _INT_BITS:  # more digits than str() and JSON take
        return {"int": hex(value)}
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [_encode(item) for item in value]
    if kind in (tuple, set, frozenset):
        return {kind.__name__: [_encode(item) for item in value]}
    if kind is bytes:
        return {"bytes": _b64(value)}
    if kind in (dict, collections.Counter, collections.OrderedDict):
        return {kind.__name__: [[_encode(k), _encode(v)] for k, v in dict.items(value)]}
    if kind is collections.defaultdict and value.default_factory in FACTORIES.values():
        pairs = [[_encode(k), _encode(v)] for k, v in dict.items(value)]
        return {"defaultdict": [value.default_factory.__name__, pairs]}
    if kind in RECORDERS:
        try:
            return _encode(RECORDERS[kind](value))
        except Exception:  # the function left the object in a state its recorder cannot read
            return describe(value)
    encoded = _numpy(value)
    return describe(value) if encoded is None else encoded


def encode(value: Any) -> Any:
    """`value` as JSON-able data of the shapes above: exact types by value, anything else (or a
    value nested too deep, or holding itself) described."""
    try:
        return _encode(value)
    except RecursionError:
        return describe(value)


# --- the judging side -----------------------------------------------------------------------------


def _ndarray(dtype: str, shape: list, data: str) -> Any:
    import numpy as np

    kind = np.dtype(dtype)
    if kind.kind not in _NUMPY_KINDS or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError("not an array of plain data")
    return np.frombuffer(base64.b64decode(data), dtype=kind).reshape(shape).copy()


def _scalar(dtype: str, data: str) -> Any:
    array = _ndarray(dtype, [1], data)
    return array[0]


def _tagged(tag: str, body: Any) -> Any:
    if tag == "int" and type(body) is str:
        return int(body, 16)
    if tag == "bytes":
        return base64.b64decode(body, validate=True)
    if tag in _SEQUENCES:
        return _SEQUENCES[tag](decode(item) for item in body)
    if tag in _MAPPINGS:
        return _MAPPINGS[tag](dict((decode(k), decode(v)) for k, v in body))
    if tag == "defaultdict":
        factory, pairs = body
        return collections.defaultdict(FACTORIES[factory], ((decode(k), decode(v))
                                                            for k, v in pairs))
    if tag == "ndarray":
        return _ndarray(*body)
    if tag == "numpy":
        return _scalar(*body)
    if tag == "other":
        name, text, iterator = body
        if not (type(name) is str and type(text) is str and type(iterator) is bool):
            raise ValueError("a described value needs a name, a text and a flag")
        return Described(name, text, iterator)
    raise ValueError(f"unknown tag {tag!r}")


def decode(data: Any) -> Any:
    """The value `encode` made `data` of, built afresh; ValueError for anything `encode` cannot
    have made (TypeError, KeyError and the like are turned into it)."""
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind is list:
        return [decode(item) for item in data]
    if kind is not dict or len(data) != 1:
        raise ValueError(f"not an encoded value: {kind.__name__}")
    (tag, body), = data.items()
    try:
        return _tagged(tag, body)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as err:
        raise ValueError(f"a broken encoded {tag}: {err}") from err
