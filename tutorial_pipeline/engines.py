"""Engines: how the pipeline turns a batch of documents into ids, and the check that they agree.

An engine encodes ordinary text with one tokenizer; the ids must be those of our encoder, whichever
engine made them, so that a dataset's ids do not depend on the engine (its manifest records which
one it was, as the make of a tool, not as part of the data):

- "ours": `Tokenizer.encode_ordinary`, the course's pure-Python encoder. The default: the one
  the course teaches, exact by definition, and the reference the others are checked against.
- "tiktoken": the tokenizer exported to a tiktoken `Encoding`, OpenAI's Rust BPE, one document at
  a time (`encode_ordinary`; `concatenate` copies each list's ids into the batch's array in C as
  it comes).
- "huggingface": the tokenizer exported to a `tokenizer.json` and loaded by Hugging Face
  `tokenizers`, whose `encode_batch_fast` takes the whole batch in one call.

Four rules make them interchangeable:

1. Special tokens: a document that holds a special-token string is refused before any engine sees
   it, with the pipeline's one message (`find_special`), so an engine only ever encodes ordinary
   text, and a library's own rule (tiktoken raises, `tokenizers` encodes the token) never comes in.
2. Normalization: the text an engine is given has been normalized by our own normalizer, the
   function `Tokenizer.encode` applies, and the library normalizes nothing itself (a document holds
   no special token, so normalizing it whole is what `encode` does). Two implementations of NFKC,
   with Unicode tables of different versions, would not agree on every text; one function does.
3. Routes (`engine_routes`): the engines differ from ours on a few known classes of input (the
   characters whose Unicode category their tables and the `regex` module's give otherwise, special-
   token text that normalization made, documents long enough to overflow tiktoken's regex engine,
   lone surrogates, and any class of the split pattern beyond those probed when the course was
   written); a document of any of them goes to our encoder instead, found by one test of each batch
   (a table look-up and a search, no encoding). So the ids are ours by construction, on every
   document.
4. The sample check (`SampleCheck`), a second check: once per run the engine's ids are compared
   with ours on a fixed sample of the documents, the first SAMPLE_FIRST and every SAMPLE_EVERY-th
   after; the first difference stops the run, before the dataset is in place, and says which
   document and where. It catches what rule 3 cannot know of: a wrong export, a new library
   version reading text otherwise.

Each engine uses one thread, so that `workers` is the number of cores the encoding takes. Engines
pickle (the pipeline sends one to each worker, with our tokenizer as its arguments, made there only
if a document is routed), and `fields()` is what a manifest records.
"""

from __future__ import annotations

import json
import os
from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from importlib.metadata import PackageNotFoundError, version
from itertools import chain, repeat

import numpy as np

import tutorial_lib
from tutorial_lib._checks import check_choice, check_type
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest
from tutorial_lib.contract.normalize import normalizer
from tutorial_pipeline.engine_routes import (LONG_DOCUMENT, LazyTokenizer, Routes, holds_special,
                                             probed_characters)
from tutorial_pipeline.interop import hf_json, tiktoken_export

SAMPLE_FIRST = 100  # the first documents of a run are all checked: a wrong engine fails at once
SAMPLE_EVERY = 1000  # then one document in SAMPLE_EVERY: 0.1% of the text goes through ours too
# The Python and C calls a document costs a build with each engine, at most (reading, batching,
# encoding, writing: tests/pipeline/test_engines.py counts them; 36, 15 and 14 on a one-word line in
# Python 3.11), however many documents there are; benchmarks/bench_pipeline.py measures their time.
CALLS_PER_DOCUMENT = {"ours": 48, "tiktoken": 20, "huggingface": 20}

Batch = list[tuple[str, int, str]]  # (file, number in the file, text): `corpus_files.Document`


class Engine:
    """Our encoder (`Tokenizer.encode_to_numpy` per document); the base of the other engines.

    `name` is what `build(engine=...)` and `--engine` take; `library` is the package doing the work.
    """

    name, library = "ours", "tutorial_lib"

    def __init__(self, tokenizer: Tokenizer) -> None:
        check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
        self.digest = tokenizer_manifest.digest(tokenizer)  # the tokenizer it was made for
        self.special_tokens = tuple(tokenizer.special_tokens)
        self.normalization = tokenizer.normalization
        self._tokenizer = tokenizer

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.library} {self.version}>"

    @property
    def version(self) -> str:
        return tutorial_lib.__version__

    def fields(self) -> dict[str, str]:
        """What a dataset's manifest records of the engine that made its ids."""
        return {"name": self.name, "library": self.library, "version": self.version}

    def encode_batch(self, texts: list[str]) -> Iterable[np.ndarray] | Iterable[list[int]]:
        """The ids of each text (ordinary text: `find_special` has found no special token), as a
        list or one at a time (`concatenate` copies them as they come)."""
        return [self._tokenizer.encode_to_numpy(text) for text in texts]

    def _normalized(self, texts: list[str]) -> list[str]:
        """`texts` after our normalizer (rule 2): for the engines whose library does the rest."""
        normalize = normalizer(self.normalization)
        return texts if normalize is None else list(map(normalize, texts))


class LibraryEngine(Engine):
    """An engine whose library encodes (`_encode`), except the documents routed to ours (rule 3).

    `longest`: documents of this many characters or more are ours too (None: no limit).
    """

    longest: int | None = None

    def __init__(self, tokenizer: Tokenizer) -> None:
        super().__init__(tokenizer)
        characters = probed_characters(tokenizer.pattern, self.library)  # the pattern's classes
        self.routes = Routes(self.special_tokens, self.longest, characters)
        self._ours = LazyTokenizer(tokenizer)  # sent to each worker as arguments, made if needed
        self._tokenizer = None

    def encode_batch(self, texts: list[str]) -> Iterable[list[int]]:
        normalized = self._normalized(texts)
        routed = self.routes.find(normalized)
        if not routed:  # the usual case: the library encodes the whole batch
            return self._encode(normalized)
        theirs = iter(self._encode([text for i, text in enumerate(normalized) if i not in routed]))
        ours = self._ours.get()
        return [ours.encode_ordinary(text) if i in routed else next(theirs)
                for i, text in enumerate(texts)]

    def _encode(self, normalized: list[str]) -> Iterable[list[int]]:
        raise NotImplementedError


class TiktokenEngine(LibraryEngine):
    """tiktoken through the export (`tiktoken_export.to_tiktoken`), one document at a time; a
    document of LONG_DOCUMENT characters or more is ours (`engine_routes`, class 3).

    Not `Encoding.encode_ordinary_batch`: it hands each document to a thread pool as its own task,
    which on short documents costs more than it saves (benchmarks/bench_pipeline.py measures it).
    """

    name, library, longest = "tiktoken", "tiktoken", LONG_DOCUMENT

    def __init__(self, tokenizer: Tokenizer) -> None:
        super().__init__(tokenizer)
        self._encoding = _to_tiktoken(tokenizer)

    @property
    def version(self) -> str:
        return _version("tiktoken")

    def _encode(self, normalized: list[str]) -> Iterator[list[int]]:
        return map(self._encoding.encode_ordinary, normalized)


class HuggingFaceEngine(LibraryEngine):
    """Hugging Face `tokenizers` through the export (`hf_json.to_huggingface`), a batch per call,
    on one thread (TOKENIZERS_PARALLELISM=false while it runs: the pipeline's workers are the
    parallelism), with no normalizer of its own (rule 2)."""

    name, library = "huggingface", "tokenizers"

    def __init__(self, tokenizer: Tokenizer) -> None:
        super().__init__(tokenizer)
        self._hf = _to_huggingface(tokenizer)
        self._hf.normalizer = None  # ours is applied first
        # Ordinary text only (rule 1): a special token's text that normalization made (full-width
        # "＜|endoftext|＞" under NFKC) stays text, as in `encode`, not the special token; such a
        # document is ours anyway (rule 3).
        self._hf.encode_special_tokens = True

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._hf.encode_special_tokens = True  # which a pickled tokenizers.Tokenizer forgets

    @property
    def version(self) -> str:
        return _version("tokenizers")

    def _encode(self, normalized: list[str]) -> Iterator[list[int]]:
        previous = os.environ.get("TOKENIZERS_PARALLELISM")
        os.environ["TOKENIZERS_PARALLELISM"] = "false"  # read by tokenizers at each call
        try:
            encodings = self._hf.encode_batch_fast(normalized, add_special_tokens=False)
        finally:
            if previous is None:
                del os.environ["TOKENIZERS_PARALLELISM"]
            else:
                os.environ["TOKENIZERS_PARALLELISM"] = previous
        return (encoding.ids for encoding in encodings)


ENGINES: dict[str, type[Engine]] = {cls.name: cls for cls in
                                    (Engine, TiktokenEngine, HuggingFaceEngine)}


def make_engine(engine: str | Engine, tokenizer: Tokenizer) -> Engine:
    """The engine named `engine` ("ours", "tiktoken", "huggingface") for `tokenizer`, or `engine`
    itself if it is one, made for that tokenizer (its digest): an engine made once serves many
    builds without a new export."""
    if isinstance(engine, Engine):
        digest = tokenizer_manifest.digest(tokenizer)
        if engine.digest != digest:
            raise ValueError(f"engine {engine!r} was made for another tokenizer ({engine.digest}, "
                             f"not {digest}); make it with this one")
        return engine
    return ENGINES[check_choice(engine, "engine", list(ENGINES))](tokenizer)


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def _to_tiktoken(tokenizer: Tokenizer) -> object:
    """The export (`tiktoken_export.to_tiktoken`), of the tokenizer without its normalization when
    it has one: tiktoken has no normalizer, and ours is applied first (rule 2)."""
    digest = tokenizer_manifest.digest(tokenizer)  # the tokenizer's own digest, as the export's
    name = f"tutorial_lib_{digest[:12]}"
    return tiktoken_export.to_tiktoken(tokenizer.replace(normalization="none"), name)


def _to_huggingface(tokenizer: Tokenizer) -> object:
    """The export (`hf_json.to_huggingface`'s tokenizer.json, `hf_json.to_spec`), loaded by
    `tokenizers` from the text itself: no file."""
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:
        raise ImportError("engine='huggingface' needs the tokenizers package: pip install -c "
                          "constraints.txt -e '.[bench]', or use engine='ours'") from None
    return HFTokenizer.from_str(json.dumps(hf_json.to_spec(tokenizer), ensure_ascii=False))


# ------------------------------------------------------------------------- one batch, then a run


def find_special(texts: list[str], special_tokens: tuple[str, ...]) -> tuple[int, int, str] | None:
    """(index of the text, index in it, special token) of the first special-token string in
    `texts`, or None: one search of the batch joined (`holds_special`), so that a batch without
    one (the usual case) costs no Python call per document."""
    if not holds_special("\n".join(texts), special_tokens):
        return None
    for i, text in enumerate(texts):  # there is one, or one across a "\n" that joined two texts
        found = sorted((text.find(s), s) for s in special_tokens if s in text)
        if found:
            return i, *found[0]
    return None


def concatenate(encoded: Iterable[np.ndarray] | Iterable[list[int]], eod_id: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """The ids of each document then `eod_id`, all in one uint32 array; and each one's length (EOD
    included). The documents' ids are copied in C, with no Python call per id.

    Lists (tiktoken's, Hugging Face's) are copied as they come, so an engine that hands them over
    one at a time (a `map`) never holds a batch of them: a hundred thousand lists alive at once make
    Python's garbage collector walk them again and again, which costs more than the copy
    (benchmarks/bench_pipeline.py measures both ways).
    """
    encoded = iter(encoded)
    first = next(encoded, None)
    if isinstance(first, np.ndarray):
        arrays = [first, *encoded]
        lengths = np.fromiter(map(len, arrays), np.int64, len(arrays)) + 1
        eod = np.array([eod_id], np.uint32)
        ids = np.concatenate(list(chain.from_iterable(zip(arrays, repeat(eod)))))
        return ids.astype(np.uint32, copy=False), lengths
    lengths = array("q")

    def with_eod() -> Iterator:
        for document in chain([] if first is None else [first], encoded):
            lengths.append(len(document) + 1)
            yield document
            yield (eod_id,)

    ids = array("I", chain.from_iterable(with_eod()))
    return np.frombuffer(ids, np.uintc), np.frombuffer(lengths, np.int64)


class SampleCheck:
    """Compare an engine's ids with ours on the sample of a run's documents (rule 3).

    `batches(...)` notes the sampled documents of each batch as the pipeline cuts them;
    `results(...)` compares, as each batch's ids come back (in order, from this process or from
    workers), those of the noted documents with `Tokenizer.encode_ordinary` here. Which documents
    depends on their number in the run only, so that a run checks the same ones every time.
    """

    def __init__(self, tokenizer: Tokenizer, engine: Engine, first: int = SAMPLE_FIRST,
                 every: int = SAMPLE_EVERY) -> None:
        self.tokenizer, self.engine, self.first, self.every = tokenizer, engine, first, every
        self.checked = 0  # documents compared so far (none for ours: it is the reference)
        self._seen = 0  # documents cut into batches so far
        self._noted: deque[list[tuple[int, tuple[str, int, str]]]] = deque()

    def batches(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        for batch in batches:
            self._noted.append([(i, batch[i]) for i in self._sampled(self._seen, len(batch))])
            self._seen += len(batch)
            yield batch

    def _sampled(self, start: int, n: int) -> Iterator[int]:
        """The indices in a batch of the documents start..start + n - 1 of the run that are in the
        sample: found by arithmetic, not by a test of each document."""
        yield from range(min(n, max(0, self.first - start)))
        first_multiple = max(start, self.first) + (-max(start, self.first)) % self.every
        yield from range(first_multiple - start, n, self.every)

    def results(self, results: Iterable[tuple[np.ndarray, np.ndarray]]
                ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for ids, lengths in results:
            noted = self._noted.popleft()
            if noted and type(self.engine) is not Engine:  # ours is the reference itself
                starts = np.cumsum(lengths) - lengths
                for i, document in noted:
                    start = int(starts[i])
                    self._compare(document, ids[start : start + int(lengths[i]) - 1])
                self.checked += len(noted)
            yield ids, lengths

    def _compare(self, document: tuple[str, int, str], theirs: np.ndarray) -> None:
        name, number, text = document
        ours = self.tokenizer.encode_ordinary(text)
        if len(ours) == len(theirs) and np.array_equal(ours, theirs):
            return
        k = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours),
                                                                                  len(theirs)))
        at = len(self.tokenizer.decode_bytes(ours[:k]))
        there = self.tokenizer.decode_bytes(ours[k : k + 3]).decode("utf-8", "replace")
        raise ValueError(
            f"the {self.engine.name} engine ({self.engine.library} {self.engine.version}) gives "
            f"other ids than our encoder for {name}, the document at index {number}: from token "
            f"{k} on (byte {at} of the normalized text, at {there!r}), ours are "
            f"{ours[k : k + 5]}, the engine's {theirs[k : k + 5].tolist()} ({len(ours)} ids "
            f"against {len(theirs)}). Nothing was written; build with engine='ours'")
