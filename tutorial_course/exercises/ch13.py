"""Chapter 13 exercises: the invariant decode(encode(x)) == N(x) checked for a tokenizer and a
normalization form, each token's character span from its bytes, and one golden vector of a
category, which the learner builds from the first two (N, and the spans in N(x) carried back to
x); the oracles are `normalize.normalize`, `offsets.encode_with_offsets` and `golden.vector`, the
modules the chapter teaches.

The tokenizers are the course tokenizer (trained without normalization) rebuilt with each of
`normalize.FORMS` and shared by all cases (`SharedTokenizer`), and, for the offsets, GPT-2's,
which cuts most Han characters into byte pieces. The real cases draw lines and slices of Lu Xun,
Tatoeba, TinyStories, the code sample and FLORES-200 (Chinese, Japanese, Thai, Hindi, Arabic,
French); the hidden cases draw others.
"""

from __future__ import annotations

import functools
import random
import re

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.bpe.formats import from_gpt2_files
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import golden, offsets
from tutorial_lib.contract.normalize import FORMS, normalize, normalizer

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
    """The short non-blank lines of corpus `name` ("luxun", "flores/zho_Hans", ...)."""
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
    ("NFKC", "NFKC", ["，", "ａ"]),  # the right pairing: nothing fails, though both change
    ("NFKC_casefold", "NFKC", ["Straße", "阿Q", "中文"]),
    ("NFKC_casefold", "NFKC_casefold", ["\u01f0", "Straße", "ẞ", "ΣΑΣ", "ﬁ", "①"]),
    ("none", "NFKC_casefold", ["İ", "i", "Ⅻ"]),
    # NFKC first: casefolding first leaves 𝐀 (mathematical bold) and ᴬ as A, and ϲ as ς
    ("NFKC_casefold", "NFKC_casefold", ["用𝐀𝐈写作", "ᴬᴮᶜ", "ϲ", "Abc"]),
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


@functools.cache
def _pools(ours: str, checked: str, name: str) -> tuple[list[str], list[str], list[str]]:
    """The lines of corpus `name` that the two forms write differently, the other lines that some
    form changes, and the lines that no form changes (the same for every seed: computed once)."""
    apply = {form: normalizer(form) or str for form in FORMS}  # "none" leaves the line as it is
    differ, touched, untouched = [], [], []
    for line in corpus_lines(name):
        if apply[ours](line) != apply[checked](line):
            differ.append(line)
        elif any(apply[form](line) != line for form in FORMS):
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
    points=2,
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
    library_twins=("tutorial_lib.contract.normalize.normalize",),
))


# --- 13.token_offsets ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def byte_level_tokenizer(name: str) -> Tokenizer:
    """Two byte-level BPEs without normalization: the course's (4096 entries, trained on these
    corpora) and GPT-2's (50,257, which cuts most Han characters into pieces)."""
    if name == "course":
        return course_tokenizer.load()
    return from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])


def _offsets_case(name: str, text: str) -> Case:
    """The text and its tokens' bytes; expected: `offsets.encode_with_offsets`'s spans and flags
    (every special token allowed, so that a story's <|endoftext|> is one token)."""
    tokenizer = byte_level_tokenizer(name)
    found = offsets.encode_with_offsets(tokenizer, text, allowed_special="all")
    pieces = [tokenizer.token_bytes(i) for i in found.ids]
    return Case((text, pieces), ([tuple(span) for span in found.offsets], list(found.partial)))


# Han characters the course tokenizer knows and ones it cuts, emoji (one of them a ZWJ sequence),
# a combining accent (a character of its own), letters next to Han, code, nothing at all
OFFSET_TEXTS = ["", "abc", "世", "世界", "😀", "a😀b", "e\u0301", "naïve café", "饕餮",
                "阿Q正传", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "2024年3月15日",
                "    return x  # 返回\n"]
# (tokenizer, corpus, characters): slices of real text cut at a drawn place
OFFSET_SLICES = [("course", "luxun", 40), ("gpt2", "luxun", 30), ("course", "tatoeba_cmn", 30),
                 ("gpt2", "tatoeba_cmn", 30), ("course", "code_sample", 60),
                 ("gpt2", "code_sample", 60), ("course", "flores/jpn_Jpan", 40),
                 ("gpt2", "flores/tha_Thai", 30), ("gpt2", "flores/hin_Deva", 30)]
AROUND_EOT = 25  # characters of TinyStories on each side of a drawn <|endoftext|>


def _offsets_cases(seed: int | None = None) -> list[Case]:
    """Hand texts under both tokenizers, the code sample's line of Han and emoji, slices of the
    corpora, and TinyStories across the end of a story."""
    runs = [(name, text) for text in OFFSET_TEXTS for name in ("course", "gpt2")]
    probe = next(line for line in data.load_text("code_sample").splitlines() if "🙂" in line)
    runs += [("course", probe), ("gpt2", probe)]
    rng = draw(seed, SEED + 1)
    for name, corpus, n in OFFSET_SLICES:
        text = data.load_text(corpus)
        start = rng.randrange(len(text) - n)
        runs.append((name, text[start:start + n]))
    stories = data.load_text("tinystories")
    ends = [m.start() for m in re.finditer(re.escape(data.ENDOFTEXT), stories)]
    for name in ("course", "gpt2"):
        at = rng.choice(ends[1:])
        runs.append((name, stories[at - AROUND_EOT:at + len(data.ENDOFTEXT) + AROUND_EOT]))
    return [_offsets_case(name, text) for name, text in runs]


register(Exercise(
    key="13.token_offsets",
    points=3,
    title="练习 2：从 token 的字节算出它在原文里的字符区间",
    concept="偏移（offset）是每个 token 在原文里的字符区间 [start, end)，按字符（Python 的 str "
            "下标）算，不是按 UTF-8 字节。没有规范化时，所有 token 的字节连起来就是 "
            "text.encode('utf-8')，所以第 k 个 token 占原文字节的 [b, e)（前面 token 的字节数之和"
            "到再加上它自己的）。字节级 BPE 的 token 不一定是整字：'世' 有 3 个字节，可能被切成 "
            "b'\\xe4\\xb8' 和 b'\\x96' 两个 token。这样的 token 的区间是它的字节碰到的每个字符"
            "（两半都是 '世' 的 (0, 1)，相邻 token 的区间会重叠），同时标一个 partial=True："
            "它的字节从某个字符的中间开始，或者在某个字符的中间结束。整字的 token 是 False。"
            "每个 token 都要有一项，一个也不能丢。",
    recipe="char_ends = list(itertools.accumulate(len(ch.encode('utf-8')) for ch in text))"
           "（第 j 个字符结束在哪个字节）；byte = 0；对每个 piece：end = byte + len(piece)，"
           "first = bisect.bisect_right(char_ends, byte)（第一个字节所在的字符），"
           "last = bisect.bisect_right(char_ends, end - 1)（最后一个字节所在的字符），区间是 "
           "(first, last + 1)；第 first 个字符从 starts_at = char_ends[first - 1] if first else 0 "
           "开始，partial = byte != starts_at or char_ends[last] != end；byte = end。"
           "返回 (区间的列表, partial 的列表)，区间写成 (start, end) 元组。",
    make_cases=_offsets_cases,
    library_twins=("tutorial_lib.contract.offsets.encode_with_offsets",),
))


# --- 13.golden_vector ----------------------------------------------------------------------------

# The categories whose vectors hold the five fields of ordinary text: not the control-token
# look-alikes (also encoded with special tokens allowed) nor the malformed inputs (an error)
VECTOR_CATEGORIES = tuple(c for c in golden.CATEGORIES
                          if not c.allowed_special and c.name != "malformed")
VECTOR_CORPORA = ("luxun", "tatoeba_cmn", "code_sample", "tinystories", "flores/zho_Hans",
                  "flores/tha_Thai", "flores/arb_Arab", "flores/hin_Deva", "flores/jpn_Jpan",
                  "flores/fra_Latn")


@functools.lru_cache(maxsize=None)
def _candidate_lines() -> tuple[str, ...]:
    """Short lines of the corpora that spell no control token: candidate inputs."""
    return tuple(line for name in VECTOR_CORPORA for line in corpus_lines(name)
                 if "<|" not in line)


@functools.lru_cache(maxsize=None)
def _lines_by_belonging(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the candidate lines that belong to category `name`, those that do not)."""
    belongs = next(c for c in VECTOR_CATEGORIES if c.name == name).belongs
    lines = _candidate_lines()
    return (tuple(x for x in lines if belongs(x)), tuple(x for x in lines if not belongs(x)))


def _vector(tokenizer: Tokenizer, name: str, x: str) -> dict | None:
    """The expected answer: golden's vector of `x` if it belongs to category `name`, else None."""
    belongs = next(c for c in VECTOR_CATEGORIES if c.name == name).belongs
    return golden.vector(tokenizer, name, x) if belongs(x) else None


# (category, input) by hand, besides each category's own inputs: the smallest composition (o and
# U+0308 make one ö), a mark with no letter before it, full-width letters, one … that NFKC makes
# three dots, a ligature, ß that case folding makes two letters, a control token's text that
# encode_ordinary keeps as text, and section 3's sentence (鲁 cut into two tokens, then ： and …)
VECTOR_HAND = [("combining_marks", "o\u0308"), ("combining_marks", "\u0301e"),
               ("compatibility", "ＡＢＣ"), ("compatibility", "好…"), ("compatibility", "ﬁ"),
               ("compatibility", "Ｓｔｒａßｅ"),
               ("repeated_whitespace", "The end.<|endoftext|>  Once"),
               ("no_space_scripts", "鲁迅写道：“希望本是无所谓有的……”")]


@functools.lru_cache(maxsize=None)
def _changed_lines(name: str, form: str) -> tuple[str, ...]:
    """The lines of category `name` that `form` changes, or all of them if it changes none."""
    inside, apply = _lines_by_belonging(name)[0], normalizer(form) or str
    return tuple(x for x in inside if apply(x) != x) or inside


def _distinct(runs: list[tuple[str, str, str]]) -> list[Case]:
    """A case for each (form, category, input), but none whose input and vector an earlier case
    already has (a form that leaves the input as another form does teaches nothing new)."""
    found: list[Case] = []
    for form, name, x in runs:
        expected = _vector(course_with(form), name, x)
        if not any(c.args[1:] == (name, x) and c.expected == expected for c in found):
            found.append(Case((course_with(form), name, x), expected))
    return found


def _vector_cases(seed: int | None = None) -> list[Case]:
    """Each category's own inputs and the hand inputs under every form, an input of the next
    category that does not belong; then lines of the corpora: under each form one of the
    category's lines that the form changes (if any), and one line that does not belong."""
    rng = draw(seed, SEED + 2)
    hand = [(c.name, x) for c in VECTOR_CATEGORIES for x in c.inputs] + VECTOR_HAND
    runs = [(form, name, x) for name, x in hand for form in FORMS]
    for k, category in enumerate(VECTOR_CATEGORIES):
        following = VECTOR_CATEGORIES[(k + 1) % len(VECTOR_CATEGORIES)].inputs
        runs += [(FORMS[k % len(FORMS)], category.name, x)
                 for x in following if not category.belongs(x)][:1]
    for category in VECTOR_CATEGORIES:
        inside, outside = _lines_by_belonging(category.name)
        runs += [(form, category.name, rng.choice(_changed_lines(category.name, form)))
                 for form in FORMS if inside]
        runs.append((rng.choice(FORMS), category.name, rng.choice(outside)))
    return _distinct(runs)


register(Exercise(
    key="13.golden_vector",
    points=2,
    title="练习 3：用练习 1 的 N 和练习 2 的偏移写一条黄金向量",
    concept="黄金向量的一条记录：x 属于这一类（golden.CATEGORIES 里这一类的 belongs(x) 为真）才记，"
            "否则返回 None；记的是 dict，六个键：'category'、'input'（x 原样）、'normalized'"
            "（N(x)，N 是分词器自己的形式 tokenizer.normalization，写法同练习 1）、'ids'"
            "（encode_ordinary(x)：文本里的 <|endoftext|> 也只是文字）、'offsets'、'decoded'"
            "（decode(ids)）。'offsets' 是每个 token 在原始 x 里的字符区间，写成 [start, end] "
            "列表。token 切的是 N(x)，所以分两步：先用练习 2 的 token_offsets(N(x), 各 token 的"
            "字节) 得到它在 N(x) 里的字符区间 [a, b)，再换成 x 里的区间：N(x) 的每个字符来自 x "
            "的一段，从 s = 0 起找最短的 x[s:j]，使 N(x[s:j]) + N(x[j:]) == N(x[s:])（这一段和"
            "后面的分开规范化，结果不变），N(x[s:j]) 的每个字符都来自 [s, j)，再从 j 接着找。"
            "'o' + U+0308 在 NFC 下合成一个 'ö'，它来自 [0, 2)；NFKC 把 '…' 变成三个 '.'，"
            "三个都来自 '…' 那一格。屏幕上 'o' + U+0308 和 'ö' 看起来一样，分不清时用 "
            "[f'U+{ord(c):04X}' for c in x] 看码点。",
    recipe="N(text) 同练习 1（form = tokenizer.normalization）。对齐：normalized, came_from, s "
           "= '', [], 0；while s < len(x)：whole = N(x[s:])；j = next(j for j in range(s + 1, "
           "len(x) + 1) if N(x[s:j]) + N(x[j:]) == whole)；piece = N(x[s:j])；normalized += "
           "piece；came_from += [(s, j)] * len(piece)；s = j。然后 ids = "
           "tokenizer.encode_ordinary(x)；spans, _ = token_offsets(normalized, "
           "[tokenizer.token_bytes(i) for i in ids])；offsets = [[came_from[a][0], "
           "came_from[b - 1][1]] for a, b in spans]；返回 {'category': category, 'input': x, "
           "'normalized': normalized, 'ids': ids, 'offsets': offsets, 'decoded': "
           "tokenizer.decode(ids)}。",
    make_cases=_vector_cases,
    library_twins=("tutorial_lib.contract.golden.vector", "tutorial_lib.contract.golden.vectors",
                   "tutorial_lib.contract.offsets.encode_with_offsets",
                   "tutorial_lib.contract.offsets.offset_rows",
                   "tutorial_lib.contract.normalize_cuts.normalize_aligned",
                   "tutorial_lib.contract.normalize.normalize"),
))
