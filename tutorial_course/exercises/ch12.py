"""Chapter 12 exercises: the token premium of a language as a distribution, bits per byte from a
model's log-probabilities of each token, and the script of one vocabulary entry; the oracles are
`evaluate.Premium`, `bits_per_byte.from_loss` and `model_tokenizers.token_script`, the modules the
chapter teaches.

The real cases: token counts of slices of the FLORES-200 devtest sentences under cl100k and the
course tokenizer (`course_tokenizer.load`); what the chapter's bigram model (`bits_per_byte`,
order 2) gives each token of held-out TinyStories and Lu Xun lines, each text under two
tokenizers; vocabulary entries drawn from cl100k, Qwen2.5 and DeepSeek-V4. The hidden cases cut
other slices and draw other entries.
"""

from __future__ import annotations

import functools
import math
import random

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.evaluation import bits_per_byte
from tutorial_lib.text import model_tokenizers
from tutorial_lib.evaluation.evaluate import ENGLISH, Premium
from tutorial_lib.text import compare
from tutorial_lib.text.measure import Segmenter

SEED = 12  # the public cases' random numbers
COURSE = "course"  # the course tokenizer, beside the names model_tokenizers.load knows


@functools.lru_cache(maxsize=None)
def _segmenter(name: str) -> Segmenter:
    if name == COURSE:
        return compare.from_tokenizer(COURSE, course_tokenizer.load())
    return model_tokenizers.load(name)


# --- 12.premium_summary ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _flores_counts(name: str, lang: str) -> tuple[int, ...]:
    """Tokens of each of the 1012 FLORES devtest sentences of `lang` under tokenizer `name`."""
    encode = _segmenter(name).encode
    return tuple(len(encode(line)) for line in data.load_parallel(lang))


# (tokenizer, language, sentences in the slice): far and near scripts, short and long slices
FLORES_SLICES = [(COURSE, "zho_Hans", 40), (COURSE, "jpn_Jpan", 30), (COURSE, "kor_Hang", 12),
                 (COURSE, "spa_Latn", 40), ("cl100k", "zho_Hans", 40), ("cl100k", "tha_Thai", 40),
                 ("cl100k", "hin_Deva", 20), ("cl100k", "deu_Latn", 60)]


def _summary(lang_counts: list[int], eng_counts: list[int]) -> tuple[float, float, float, float]:
    premium = Premium.from_counts("", "", lang_counts, eng_counts)
    return premium.median, premium.p90, premium.max, premium.corpus


def _premium_cases(seed: int | None = None) -> list[Case]:
    """Toys by hand (odd and even counts, one sentence, ties, a long sentence that weighs more,
    premiums below 1, a P90 on a rank), random toys, then slices of FLORES."""
    pairs = [
        ([3, 6, 2], [2, 3, 2]),  # 1.5 2 1: median 1.5, P90 1.9 (rank 1.8), corpus 11/7
        ([2, 4, 9, 4], [1, 2, 3, 1]),  # 2 2 3 4: median 2.5, P90 3.7
        ([5], [2]),
        ([4, 4, 4, 4, 4], [2, 2, 2, 2, 2]),
        ([30, 1], [10, 1]),  # 3 and 1: median 2, corpus 31/11
        ([1, 2, 3], [2, 2, 2]),
        (list(range(1, 12)), [1] * 11),  # P90 on rank 9 exactly: 10.0
        ([7, 3, 12, 5, 9, 4], [5, 3, 4, 5, 2, 2]),
    ]
    rng = draw(seed, SEED)
    for _ in range(10):
        n = rng.randint(1, 12)
        eng = [rng.randint(1, 30) for _ in range(n)]
        pairs.append(([rng.randint(1, 60) for _ in range(n)], eng))
    slices = draw(seed, SEED + 1)
    for name, lang, n in FLORES_SLICES:
        start = slices.randrange(len(data.load_parallel(lang)) - n)
        pairs.append((list(_flores_counts(name, lang)[start:start + n]),
                      list(_flores_counts(name, ENGLISH)[start:start + n])))
    return [Case((lang, eng), _summary(lang, eng)) for lang, eng in pairs]


register(Exercise(
    key="12.premium_summary",
    points=3,
    title="练习 1：一种语言的 token 溢价：中位数、P90、最大值和整体比值",
    concept="token 溢价（premium）比的是同一句话在两种语言里各要多少 token：第 i 句的溢价是 "
            "lang_counts[i] / eng_counts[i]（这一句在这种语言里的 token 数除以同一句英文的 "
            "token 数）。一个平均数会盖住分布，所以报四个数：每句溢价的中位数、第 90 百分位"
            "（P90，在相邻两个名次之间线性插值，numpy 的默认做法）、最大值，以及整体比值 "
            "sum(lang_counts) / sum(eng_counts)。整体比值是整份文档要多花的 token，长句分量更重，"
            "它不是每句溢价的平均数。",
    recipe="ratios = [l / e for l, e in zip(lang_counts, eng_counts)]；s = sorted(ratios)，"
           "n = len(s)。中位数：n 为奇数取 s[n // 2]，偶数取 (s[n // 2 - 1] + s[n // 2]) / 2。"
           "P90：pos = 0.9 * (n - 1)，lo = int(pos)，hi = min(lo + 1, n - 1)，"
           "p90 = s[lo] + (pos - lo) * (s[hi] - s[lo])（或者直接用 np.median(ratios) 和 "
           "np.percentile(ratios, 90)）。返回 (中位数, p90, max(ratios), "
           "sum(lang_counts) / sum(eng_counts))。",
    make_cases=_premium_cases,
    library_twins=("tutorial_lib.evaluation.evaluate.Premium.from_counts",
                   "tutorial_lib.evaluation.evaluate.Premium.__init__",
                   "tutorial_lib.evaluation.evaluate.token_premium"),
))


# --- 12.bits_per_byte ----------------------------------------------------------------------------

def _lines(name: str) -> list[str]:
    return [line for line in data.load_text(name).splitlines() if line.strip()]


# (tokenizer, corpus): the same held-out lines under two tokenizers, in English and in Chinese
BPB_RUNS = [(COURSE, "tinystories"), ("gpt2", "tinystories"), ("cl100k", "luxun"),
            ("Qwen2.5", "luxun")]
TRAIN_LINES = 300  # the bigram model's training lines
HELD_OUT_BYTES = 800  # the lines after them are scored until they hold this many bytes


def _held_out(lines: list[str]) -> list[str]:
    taken: list[str] = []
    while sum(len(line.encode("utf-8")) for line in taken) < HELD_OUT_BYTES:
        taken.append(lines[len(taken)])
    return taken


@functools.lru_cache(maxsize=None)
def _scored(name: str, corpus: str, start: int) -> tuple[list[float], list[bytes], float]:
    """What the chapter's bigram model says about held-out lines of `corpus` under tokenizer
    `name`: the natural log of each token's probability, the bytes each token covers, and the
    library's bits per byte. The model is trained on TRAIN_LINES lines from `start` and scores the
    lines after them (`bits_per_byte.evaluate_tokenizer`, order 2, as in the notebook's §4)."""
    lines = _lines(corpus)[start:]
    held_out = _held_out(lines[TRAIN_LINES:])
    segmenter = _segmenter(name)
    result = bits_per_byte.evaluate_tokenizer(segmenter, lines[:TRAIN_LINES], held_out, order=2)
    log_probs = [-bits * math.log(2) for bits in result.nll_bits.tolist()]  # log2 p -> ln p
    token_bytes = [token for line in held_out for token in segmenter.tokens(line)]
    return log_probs, token_bytes, result.bits_per_byte


# what a random text is made of: tokens of ASCII, accented and Han characters and an emoji, and
# a Han character split between two tokens (bytes that are no character on their own); joined,
# the tokens are always whole UTF-8 text
POOL = [(b"a",), (b" the",), (b".",), (b"\n",), ("é".encode(),), ("中".encode(),),
        ("国人".encode(),), ("，".encode(),), ("😀".encode(),), (b"\xe4\xb8", b"\xad")]


def _bpb_cases(seed: int | None = None) -> list[Case]:
    """Toys worked by hand, random ones, then a bigram model's log-probabilities on held-out
    TinyStories and Lu Xun lines, each text under two tokenizers."""
    half, quarter, eighth = math.log(1 / 2), math.log(1 / 4), math.log(1 / 8)
    runs = [
        ([half], [b"a"]),  # one bit, one byte
        ([half, quarter], [b"a", b"bc"]),  # 3 bits over 3 bytes, not over 2 tokens
        ([eighth], ["中".encode()]),  # 3 bits over 3 bytes: one character
        ([quarter, quarter], [b"\xe4\xb8", b"\xad"]),  # 中 in two tokens: 4 bits over 3 bytes
        ([0.0, 0.0], [b"ab", b"c"]),  # a model that is sure: 0 bits
        ([half] * 4, [b"The", b" cat", b" sat", b"."]),  # 4 bits over 12 bytes
        ([math.log(1 / 256)] * 3, [b"a", b"b", b"c"]),  # uniform over 256 bytes: 8 bits each
        ([math.log(1 / 16), half], ["你好".encode(), "，".encode()]),  # 5 bits over 9 bytes
    ]
    rng = draw(seed, SEED + 2)
    for _ in range(10):
        tokens = [token for _ in range(rng.randint(1, 10)) for token in rng.choice(POOL)]
        runs.append(([math.log(rng.uniform(0.001, 1.0)) for _ in tokens], tokens))
    starts = _starts(seed)
    runs += [_scored(name, corpus, starts[corpus])[:2] for name, corpus in BPB_RUNS]
    return [Case(run, _expected(*run)) for run in runs]


def _starts(seed: int | None) -> dict[str, int]:
    """The line where each corpus's training lines start, shared by its two tokenizers: the
    first line for the public cases, a random one for hidden cases."""
    rng = draw(seed, SEED + 3)
    return {corpus: 0 if seed is None else rng.randrange(len(_lines(corpus)) - 2 * TRAIN_LINES)
            for corpus in ("tinystories", "luxun")}


def _expected(log_probs: list[float], token_bytes: list[bytes]) -> float:
    """The library's bits per byte from its loss per token, as a training log has it (0.0 - the
    sum: a model that is sure of every token has 0.0 bits, not -0.0)."""
    return bits_per_byte.from_loss((0.0 - math.fsum(log_probs)) / len(log_probs), len(log_probs),
                                   sum(map(len, token_bytes)))


register(Exercise(
    key="12.bits_per_byte",
    points=2,
    title="练习 3：从每个 token 的对数概率算每字节比特（bits per byte）",
    concept="语言模型对第 i 个 token 给出概率 p_i，log_probs[i] 是它的自然对数 ln p_i（0 或负数，"
            "和训练里 log_softmax 给的一样）。整段文本的信息量是 -Σ ln p_i，单位 nats（负号把"
            "负的对数变成正的损失）；换成比特要除以 ln 2（1 比特 = ln 2 ≈ 0.693 nats）。"
            "token_bytes[i] 是第 i 个 token 覆盖的 UTF-8 字节（一个汉字的字节可以分在两个 "
            "token 里，每个 token 只算自己的字节）。每字节比特 = 总比特 ÷ 总字节数：除以字节数，"
            "不是 token 数（那是每 token 的比特），也不是字符数（一个汉字 3 个字节）。",
    recipe="import math；total_bits = -sum(log_probs) / math.log(2)；n_bytes = sum(len(b) for b "
           "in token_bytes)；返回 total_bits / n_bytes。",
    make_cases=_bpb_cases,
    library_twins=("tutorial_lib.evaluation.bits_per_byte.from_loss",),
))


# --- 12.token_script -----------------------------------------------------------------------------

SCRIPT_TOKENS = [
    # partial: not valid UTF-8 on its own
    b"\xe4\xb8", b"\x80", b"\xff", b" \xe4\xb8", b"\xe4\xb8\xad\xe5", b"\xed\xa0\x80",
    # han: the script, not only U+4E00-U+9FFF
    "中国", " 中国", "〇", "々", "𠀀", "⺀",
    # latin, digit: what a letter or a digit is
    " the", "é", "Ａ", "ß", "ª", "ﬁ", "123", " 2024", "１２", "٣",
    # punctuation and symbols; whitespace
    "，", "。", "$", "😀", "...", " .", " ", "\n\n", "\t", "\u3000", "\xa0", "\r\n",
    # other: letters of other scripts, marks, numbers that are not digits, invisible characters
    "Привет", "の", "α", "\u0301", "²", "½", "Ⅻ", "\u200b", "\ufeff",
    # mixed; inner whitespace is ignored too
    "阿Q", "3D", "的，", "e\u0301", "<|endoftext|>", "a b", "中 国",
]
VOCABULARIES = ("cl100k", "Qwen2.5", "DeepSeek-V4")
PER_SCRIPT = 3  # real entries of each script per vocabulary, at most


def _vocab_entries(name: str, rng: random.Random, draws: int = 400) -> list[bytes]:
    """Up to PER_SCRIPT entries of each script among `draws` ids drawn from vocabulary `name`
    (gaps and empty entries skipped): the rare scripts too, not only Latin and Han."""
    segmenter = _segmenter(name)
    taken: dict[str, list[bytes]] = {}
    for _ in range(draws):
        try:
            token = segmenter.token_bytes(rng.randrange(segmenter.vocab_size))
        except (KeyError, ValueError):
            continue
        group = taken.setdefault(model_tokenizers.token_script(token), [])
        if token and token not in group and len(group) < PER_SCRIPT:
            group.append(token)
    return [token for group in taken.values() for token in group]


def _script_cases(seed: int | None = None) -> list[Case]:
    """Every script and its edges by hand, then entries of three real vocabularies."""
    tokens = [t if isinstance(t, bytes) else t.encode("utf-8") for t in SCRIPT_TOKENS]
    for i, name in enumerate(VOCABULARIES):
        tokens += _vocab_entries(name, draw(seed, SEED + 4 + i))
    return [Case((token,), model_tokenizers.token_script(token)) for token in tokens]


register(Exercise(
    key="12.token_script",
    points=2,
    title="练习 2：一个词表条目属于哪种文字",
    concept="一个词表条目（token 的字节）按它的字符归类。先看这些字节单独是不是合法的 UTF-8："
            "不是（只是某个字符的一部分，比如“中”的前两个字节 b'\\xe4\\xb8'）就是 'partial'。"
            "是的话，去掉其中所有空白字符（ch.isspace() 为真的，不只开头的空格：' the' 和 "
            "'a b' 都算拉丁字母），剩下的字符逐个按这个顺序归类，先符合哪条就是哪类："
            "汉字（Unicode 文字属性 Han，包括 〇 和扩展区的字，不只 U+4E00–U+9FFF）是 'han'；"
            "十进制数字（Unicode 类别 Nd，全角数字也算）是 'digit'；拉丁字母（类别以 L 开头，"
            "即字母，并且文字属性是 Latin：带重音的、全角的也算；Ⅻ 这样的罗马数字文字属性"
            "也是 Latin，但类别是 Nl，不算）是 'latin'；标点和符号（类别以 P 或 S 开头："
            "，。$ + 😀）是 'punctuation'；其余（别的文字的字母、组合附加符号、² ½ Ⅻ 这样不是 "
            "Nd 的数字、控制字符和看不见的格式字符）是 'other'。一个字符都不剩是 'whitespace'；"
            "剩下的都属同一类就是那一类，不止一类就是 'mixed'（'阿Q'）。",
    recipe="import unicodedata, regex。try: text = token.decode('utf-8')，except "
           "UnicodeDecodeError: return 'partial'。kinds = set()；对 text 的每个 ch：ch.isspace() "
           "就跳过；regex.match(r'\\p{Han}', ch)（或 characters.is_han(ch)）→ 'han'；否则 "
           "cat = unicodedata.category(ch)：cat == 'Nd' → 'digit'；cat.startswith('L') 且 "
           "regex.match(r'\\p{Latin}', ch) → 'latin'；cat[0] 是 'P' 或 'S' → 'punctuation'；"
           "否则 'other'；放进 kinds。最后 kinds 为空返回 'whitespace'，只有一类返回它，否则返回 "
           "'mixed'。",
    make_cases=_script_cases,
    library_twins=("tutorial_lib.text.model_tokenizers.token_script",
                   "tutorial_lib.text.model_tokenizers.vocab_scripts",
                   "tutorial_lib.text.characters.char_category"),
))
