"""Chapter 13 exercises: the invariant decode(encode(x)) == N(x) checked for a tokenizer and a
normalization form; the oracles are `normalize.normalize` and the tokenizer itself, the modules
the chapter teaches.

The tokenizer of every case is the course tokenizer (trained without normalization) rebuilt with
one of `normalize.FORMS`, shared by all cases (`SharedTokenizer`). The real cases draw lines of
Lu Xun, Tatoeba and FLORES-200 (Chinese, Thai, Hindi, Arabic, French): some that the pairing's
two forms write differently, some that a normalization changes, some that none does; the hidden
cases draw other lines.
"""

from __future__ import annotations

import functools
import random

from tutorial_lib import data
from tutorial_lib.exercises import Case, Exercise, draw, register
from tutorial_lib.tokenization import course_tokenizer
from tutorial_lib.tokenization.normalize import FORMS, normalize
from tutorial_lib.tokenization.tokenizer import Tokenizer

SEED = 13  # the public cases' random numbers


class SharedTokenizer(Tokenizer):
    """A Tokenizer that every case shares, with a short repr for the checker's messages.

    Copying it for each case would rebuild its piece cache (as long as the case itself); its
    repr names the one thing a case is about, the normalization."""

    def __deepcopy__(self, memo: dict) -> SharedTokenizer:
        return self

    def __repr__(self) -> str:
        return f"<课程分词器 normalization={self.normalization!r}>"


@functools.lru_cache(maxsize=None)
def course_with(form: str) -> SharedTokenizer:
    """The course tokenizer, trained on raw text, rebuilt to apply normalization `form`."""
    t = course_tokenizer.load()
    return SharedTokenizer(t.vocab, t.merges, list(t.special_tokens), t.pattern, t.metadata, form)


MAX_CHARS = 120  # lines of at most this many characters: a failing case stays readable


@functools.lru_cache(maxsize=None)
def corpus_lines(name: str) -> tuple[str, ...]:
    """The short non-blank lines of a corpus: "luxun", "tatoeba_cmn" or "flores/<lang>"."""
    if name.startswith("flores/"):
        lines = data.load_parallel(name.removeprefix("flores/"))
    else:
        lines = data.load_text(name).splitlines()
    return tuple(line for line in lines if line.strip() and len(line) <= MAX_CHARS)


# --- 13.invariant_failures -----------------------------------------------------------------------

def _failures(tokenizer: Tokenizer, texts: list[str], form: str) -> list[int]:
    """Where decode(encode_ordinary(x)) != normalize(x, form): the expected answer."""
    return [i for i, text in enumerate(texts)
            if tokenizer.decode(tokenizer.encode_ordinary(text)) != normalize(text, form)]


# (the tokenizer's normalization, the form checked, texts): each form's edges, by hand
HAND = [
    ("none", "none", ["", " ", "\u3000", "阿Q"]),
    ("none", "NFC", ["e\u0301", "é", "café"]),  # a combining accent, then the composed é
    ("NFC", "NFC", ["e\u0301", "\u212b", "\uf900"]),  # Å (angstrom), 豈 (compatibility ideograph)
    ("NFC", "NFKC", ["①", "ﬁ", "é", "１２"]),
    ("NFKC", "NFC", ["\uf900", "ﬁ", "abc"]),  # NFC too maps the compatibility ideograph
    ("NFKC", "none", ["\u3000", "，", "a"]),
    ("NFKC_casefold", "NFKC", ["Straße", "阿Q", "中文"]),
    ("NFKC_casefold", "NFKC_casefold", ["\u01f0", "Straße", "ẞ", "ΣΑΣ", "ﬁ", "①"]),
    ("none", "NFKC_casefold", ["İ", "i", "Ⅻ"]),
]

# (the tokenizer's normalization, the form checked, corpus): wrong pairings and right ones
PAIRINGS = [
    ("NFKC", "none", "luxun"),  # the pitfall: full-width ，？！ in, half-width ,?! out
    ("NFKC", "NFKC", "luxun"),
    ("none", "NFKC", "tatoeba_cmn"),
    ("none", "none", "tatoeba_cmn"),
    ("NFC", "none", "flores/hin_Deva"),  # NFC splits Devanagari letters with a nukta
    ("NFC", "NFC", "flores/hin_Deva"),
    ("none", "NFC", "flores/arb_Arab"),
    ("NFC", "NFKC", "flores/zho_Hans"),
    ("NFKC", "NFC", "flores/tha_Thai"),  # NFKC splits the vowel sara am
    ("NFKC_casefold", "NFKC", "luxun"),  # 阿Q becomes 阿q
    ("NFKC_casefold", "NFKC_casefold", "tatoeba_cmn"),
    ("NFC", "NFKC", "flores/fra_Latn"),  # NFKC makes no-break and thin spaces plain spaces
    ("NFKC", "NFKC_casefold", "flores/jpn_Jpan"),
]
PER_POOL = 2  # lines from each pool of a pairing (3 when the pairing's forms agree)


@functools.lru_cache(maxsize=None)
def _pools(ours: str, checked: str, name: str) -> tuple[list[str], list[str], list[str]]:
    """The lines of corpus `name` that the two forms write differently, the other lines that some
    form changes, and the lines that no form changes."""
    differ, touched, untouched = [], [], []
    for line in corpus_lines(name):
        if normalize(line, ours) != normalize(line, checked):
            differ.append(line)
        elif any(normalize(line, form) != line for form in FORMS):
            touched.append(line)
        else:
            untouched.append(line)
    return differ, touched, untouched


def _draw_texts(rng: random.Random, ours: str, checked: str, name: str) -> list[str]:
    """PER_POOL lines of each of the `_pools` (fewer if a pool is smaller; one more of the others
    when no line differs), in a drawn order."""
    pools = _pools(ours, checked, name)
    n = PER_POOL if pools[0] else PER_POOL + 1
    texts = [line for pool in pools for line in rng.sample(pool, min(n, len(pool)))]
    rng.shuffle(texts)
    return texts


def _invariant_cases(seed: int | None = None) -> list[Case]:
    """Each form's edges by hand, then lines of real text under right and wrong pairings."""
    runs = list(HAND)
    rng = draw(seed, SEED)
    runs += [(ours, checked, _draw_texts(rng, ours, checked, name))
             for ours, checked, name in PAIRINGS]
    return [Case((course_with(ours), texts, checked), _failures(course_with(ours), texts, checked))
            for ours, checked, texts in runs]


register(Exercise(
    key="13.invariant_failures",
    title="练习 1：按一种规范化形式检查 decode(encode(x)) == N(x)",
    concept="分词器的契约写着一种规范化（normalization）形式 N：encode 先把文本变成 N(x) 再切分，"
            "所以 decode(encode_ordinary(x)) 还原出的是 N(x)，不一定是 x。要检查的是还原的文本和 "
            "N(x) 比（不是和 x 比，也不是把还原的文本再规范化一遍）。四种形式："
            "'none' 不改文本；'NFC' 只做标准合成（e + 组合重音 → é）；'NFKC' 还做兼容分解"
            "（全角的 ，１２ → 半角的 ,12，ﬁ → fi，① → 1）；'NFKC_casefold' 是 NFKC、再 "
            "casefold（比 lower 更彻底：ß → ss）、再 NFKC 一遍（casefold 的结果可能不再是 NFKC）。"
            "分词器自己用的形式和你检查的形式不一样，差在哪些文本上，哪些文本就不满足。",
    recipe="import unicodedata。先写 N(text)：form == 'none' 返回 text；'NFC' 和 'NFKC' 返回 "
           "unicodedata.normalize(form, text)；'NFKC_casefold' 返回 unicodedata.normalize('NFKC', "
           "unicodedata.normalize('NFKC', text).casefold())。然后返回 [i for i, x in "
           "enumerate(texts) if tokenizer.decode(tokenizer.encode_ordinary(x)) != N(x)]。",
    make_cases=_invariant_cases,
    library_twins=("tutorial_lib.tokenization.normalize.normalize",),
))
