"""Routes: the documents an engine leaves to our encoder, because there its ids could differ.

tiktoken and Hugging Face `tokenizers` give our ids on ordinary text (`engines`), except on a few
classes of input, found by reading the three encoders and probing them with generated text. A
document of any class is encoded by our encoder instead, so a dataset's ids are ours by
construction and not only on the sample that `engines.SampleCheck` compares
(tests/pipeline/faults/test_engine_contract.py builds one document of each class outside it):

1. Unicode tables. `\\p{L}`, `\\p{N}` ... come from each regex engine's own Unicode tables; the
   `regex` module's are newer than those of tiktoken's and Oniguruma's engines, which lie between
   them and Python's `unicodedata` (Unicode 14.0 in Python 3.11). Where `regex` and `unicodedata`
   give a character the same general category, so do the engines; the characters where they do not
   (`routed_table`: 28,111 that only `regex` assigns, and U+0295 and U+1171E, whose category
   changed) can be cut otherwise: "\\u0c5c's" is ["\\u0c5c", "'s"] for us and ["\\u0c5c'", "s"] for
   both engines, with other ids.
2. Special-token text. A document holding one is refused before any engine sees it
   (`engines.find_special`), but normalization can make one ("＜|endoftext|＞" under NFKC,
   "<|ENDOFTEXT|>" under NFKC_casefold), and what an engine does with it is its library's rule: our
   encoder and tiktoken's `encode_ordinary` keep it text; `tokenizers` makes it the special token
   unless told not to, and a pickled `tokenizers.Tokenizer` forgets that it was told, so in the
   pipeline's workers such text became a control token. Normalized text holding one is ours.
3. Long documents, in tiktoken. Its split regex runs in fancy-regex, whose backtracking machine
   holds at most 1,000,000 entries, one per character of a pre-token it tries where the pattern
   looks around (GPT-2's `\\s+(?!\\S)` on 999,999 spaces, DeepSeek-V4's on a run of letters); past
   that tiktoken panics (a Rust PanicException, which a worker cannot even send back). Documents of
   LONG_DOCUMENT characters or more, a tenth of that, are ours. Oniguruma has no such limit.
4. Lone surrogates: tiktoken puts U+FFFD there, our encoder refuses them and says where. A corpus
   file is strict UTF-8, so only a caller's own str can hold one.
5. The pattern's other classes. Those of the course's patterns were probed over every character
   (VERIFIED: the differences are all in class 1); a pattern may use others that the engines read
   their own way: `\\w` (Oniguruma's holds "²" and not U+200D), `(?i)` ("İ" matches `(?i:i)` in both
   engines), `[[:alpha:]]` (ASCII only in tiktoken). Each is probed when an engine is made
   (`probed_characters`), and a document with a character read otherwise is ours; an escape that is
   no class of characters (`\\X`, `\\R`) cannot be probed, and the engine is refused.

Not a class: a pre-token that is itself a vocabulary entry, which tiktoken takes whole where we
merge: the export refuses ranks that do not give our merges, and then ours make every entry whole.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache

import numpy as np
import regex

from tutorial_lib.bpe.pretokenize import special_regex
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_pipeline.interop.onig_regex import to_oniguruma

LONG_DOCUMENT = 100_000  # characters (class 3): a tenth of the stack of tiktoken's regex engine
# The classes probed over every character for both engines (tests/pipeline/faults): the course's
# patterns use only these ((?i:...) with the letters of GPT-4's "'s|'t|'re|'ve|'m|'ll|'d").
VERIFIED = frozenset({r"\p{L}", r"\p{N}", r"\p{P}", r"\p{S}", r"\p{M}", r"\s", "(?i:[delmrstv])"})
CATEGORIES = ("Cn Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf "
              "Cs Co").split()  # Cn first: a code point no table assigns stays 0
FEW_SPECIALS = 8  # up to this many special tokens, a str search each; above, one regex
# In a pattern: an escape, a POSIX class, or a group of flags with i (case-insensitive).
_ESCAPE = regex.compile(r"\\(?:[pP]\{[^}]*\}|[pP][A-Za-z]|.)|\[:\^?\w+:\]"
                        r"|\(\?[a-zA-Z-]*i[a-zA-Z-]*[:)]", regex.S)
_LITERAL = set("tnrfvae0123456789xuUN") | set("AZzG")  # literal characters, and anchors
_CLASS_OF = {"s": r"\s", "S": r"\s", "d": r"\d", "D": r"\d", "w": r"\w", "W": r"\w", "b": r"\w",
             "B": r"\w"}  # each escape's class (a word boundary is where \w starts or ends)


@cache
def _categories() -> tuple[np.ndarray, np.ndarray]:
    """The general category of every code point (an index into CATEGORIES), as `regex` reads it and
    as `unicodedata` does. A quarter of a second, once per process that needs it."""
    every = np.arange(0x110000, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    number = {category: k for k, category in enumerate(CATEGORIES)}
    theirs = np.fromiter(map(number.__getitem__, map(unicodedata.category, every)), np.uint8,
                         len(every))
    ours = np.zeros_like(theirs)
    for k, category in enumerate(CATEGORIES[1:], 1):
        for match in regex.finditer(rf"\p{{{category}}}+", every):  # in runs: a few thousand
            ours[match.start() : match.end()] = k
    return ours, theirs


@cache
def routed_table() -> np.ndarray:
    """Classes 1 and 4: a bool per code point, True where `regex` and `unicodedata` give two
    general categories, and for the surrogates."""
    ours, theirs = _categories()
    routed = ours != theirs
    routed[0xD800:0xE000] = True
    return routed


@cache
def _assigned() -> str:
    """Every character that either table assigns and that is not routed, as one str."""
    ours, theirs = _categories()
    codes = np.flatnonzero(((ours > 0) | (theirs > 0)) & ~routed_table()).astype(np.uint32)
    return codes.tobytes().decode("utf-32-le")


class Routes:
    """Which documents of a batch an engine leaves to our encoder (module docstring): those holding
    a special token's text, a character of `routed_table()` or of `characters` (class 5), or, with
    `longest`, at least that many characters."""

    def __init__(self, special_tokens: tuple[str, ...], longest: int | None = None,
                 characters: tuple[int, ...] = ()) -> None:
        self.special_tokens, self.longest, self.characters = special_tokens, longest, characters
        self._ascii = any(code < 128 for code in characters)  # then ASCII text is not safe
        self._table: np.ndarray | None = None  # routed_table() with `characters`, once needed

    def __getstate__(self) -> dict:
        return {**vars(self), "_table": None}  # made again where it is needed, not sent

    def find(self, texts: list[str]) -> set[int]:
        """The indices of the `texts` (normalized: what the engine would see) that go to ours.
        One test of the batch joined (the usual case: none), each text only when it fails."""
        if not self.holds("\n".join(texts)) and (  # a "\n" cannot make a character or a long text
                self.longest is None or max(map(len, texts), default=0) < self.longest):
            return set()
        return {i for i, text in enumerate(texts) if self.reason(text) is not None}

    def reason(self, text: str) -> str | None:
        """Why `text` goes to our encoder (the class), or None."""
        if self.longest is not None and len(text) >= self.longest:
            return f"a document of {self.longest:,} characters or more"
        return self.holds(text)

    def holds(self, text: str) -> str | None:
        """The class of the first kind of routed input that `text` holds, or None."""
        if holds_special(text, self.special_tokens):
            return "a special token's text"
        if text.isascii() and not self._ascii:  # the usual case: no table is needed
            return None
        if self._table is None:
            self._table = routed_table().copy()
            self._table[np.asarray(self.characters, np.int64)] = True
            self._first = int(self._table.argmax())  # the first routed code point (U+0295)
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        codes = codes[codes >= self._first]  # few, in most text: fewer to look up
        return "a character the engine reads otherwise" if self._table[codes].any() else None


def holds_special(text: str, special_tokens: tuple[str, ...]) -> bool:
    """Whether `text` holds a special token's text: a str search each for a few tokens, one regex
    (a single pass over the text) for many."""
    if len(special_tokens) <= FEW_SPECIALS:
        return any(special in text for special in special_tokens)
    return special_regex(special_tokens).search(text) is not None


class LazyTokenizer:
    """Our tokenizer, for the routed documents, made where it is first needed: pickled (to each
    worker) as its constructor's arguments, so that a worker that routes nothing never builds it."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer: Tokenizer | None = tokenizer
        self._made = tokenizer.__reduce__()

    def __getstate__(self) -> dict:
        return {"_tokenizer": None, "_made": self._made}

    def get(self) -> Tokenizer:
        if self._tokenizer is None:
            make, arguments = self._made
            self._tokenizer = make(*arguments)
        return self._tokenizer


# ------------------------------------------------------------------------ class 5: the pattern


def probed_characters(pattern: str, library: str) -> tuple[int, ...]:
    """The code points that `library`'s regex engine ("tiktoken" or "tokenizers") reads otherwise
    than `regex` in the classes of `pattern` outside VERIFIED, probed over every character that
    either Unicode table assigns; a ValueError for an escape that is no class of characters."""
    found: set[int] = set()
    for char_class in classes_to_probe(pattern, library):
        found.update(differing(char_class, library))
    return tuple(sorted(found))


def classes_to_probe(pattern: str, library: str) -> list[str]:
    """The character classes that `pattern` uses and VERIFIED does not hold, each as a regex."""
    classes = set()
    for match in _ESCAPE.finditer(pattern):
        token = match.group()
        if token.startswith("[:"):
            classes.add(f"[{token}]")
        elif token.startswith("(?"):  # case-insensitive: the pattern's letters, either case
            classes.add(f"(?i:[{''.join(sorted(_letters(_ESCAPE.sub('', pattern))))}])")
        elif token[1] in "pP":
            name = token[3:-1] if token[2:3] == "{" else token[2:]
            classes.add(rf"\p{{{name}}}")
        elif token[1] in _CLASS_OF:
            classes.add(_CLASS_OF[token[1]])
        elif token[1].isalnum() and token[1] not in _LITERAL:
            raise ValueError(f"the split pattern uses {token!r}, which is not a class of "
                             f"characters, so where {library}'s regex engine reads it otherwise "
                             "than the regex module cannot be probed; build with engine='ours'")
    return sorted(classes - VERIFIED - {"(?i:[])"})


def _letters(text: str) -> set[str]:
    """The ASCII letters in `text`, in lower case, with those of each range ("a-z") between."""
    letters = {c.lower() for c in text if c.isascii() and c.isalpha()}
    for first, last in regex.findall(r"([A-Za-z])-([A-Za-z])", text):
        letters.update(chr(code).lower() for code in range(ord(first), ord(last) + 1)
                       if chr(code).isalpha())
    return letters


@lru_cache(maxsize=64)
def differing(char_class: str, library: str) -> tuple[int, ...]:
    """The code points, among those either table assigns, in `char_class` for `regex` and not for
    `library`'s regex engine or the reverse (beside `routed_table`, which is routed anyway)."""
    text = _assigned()
    ours = set(regex.findall(char_class, text))
    if library == "tiktoken":
        from tutorial_lib.bpe.tiktoken_probe import tiktoken_matches
        theirs = set(tiktoken_matches(char_class, text))
    else:
        from tokenizers import Regex, pre_tokenizers  # a comparison library: only this needs it
        split = pre_tokenizers.Split(Regex(to_oniguruma(char_class)), behavior="removed")
        theirs = set(text) - set("".join(piece for piece, _ in split.pre_tokenize_str(text)))
    return tuple(sorted(map(ord, ours ^ theirs)))
