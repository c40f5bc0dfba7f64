"""Chapter 11 exercises: WordPiece's score and its longest-match encoder; the oracles are
`wordpiece_train.best_pair` and `wordpiece.encode_word`, the modules the chapter teaches.

The real-text cases cut a slice of TinyStories and of Lu Xun (the hidden cases cut another one,
chosen by `draw`); the Lu Xun words keep runs of Han characters together
(`tokenize_chinese_chars=False`), so a word can be long and hold a character the vocabulary lacks.
"""

from __future__ import annotations

import functools
import random

from tutorial_lib import data
from tutorial_lib.exercises import Case, Exercise, draw, register
from tutorial_lib.tokenization import wordpiece, wordpiece_train

SEED = 11  # the public cases' random numbers


def _lines(name: str, n: int, rng: random.Random | None) -> list[str]:
    """n non-blank lines of a corpus: the first n (public cases) or from an offset rng draws."""
    lines = [line for line in data.load_text(name).splitlines() if line.strip()]
    start = 0 if rng is None else rng.randrange(len(lines) - n)
    return lines[start:start + n]


def _top(counts: dict[str, int], n: int) -> dict[str, int]:
    """The n most frequent words (ties in sorted order), in that order: a table small to read."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n])


def _random_counts(rng: random.Random) -> dict[str, int]:
    letters = rng.choice(["ab", "abc", "aab"])
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(1, 5)))
                    for _ in range(rng.randint(2, 6))})
    counts = {w: rng.randint(1, 6) for w in words}
    if all(len(w) == 1 for w in counts):
        counts["ab"] = 1  # at least one pair to score
    return counts


def _score_cases(seed: int | None = None) -> list[Case]:
    """The toy table where score and frequency disagree, ties, repeats inside a word, real text."""
    rng = draw(seed, SEED)
    tables = [
        {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},  # frequency: ##u ##g; score: ##g ##s
        {"ab": 1, "cd": 1},  # equal scores and counts: the smaller pair
        {"abab": 1},  # ##b is seen twice: freq(##b) = 2
        {"aa": 3, "ab": 1},
        {"xy": 5, "xz": 1, "zy": 1},
        {"the": 50, "then": 2, "hen": 9},
    ]
    tables += [_random_counts(rng) for _ in range(20)]
    stories = wordpiece_train.count_words(_lines("tinystories", 30, draw(seed, SEED + 1)
                                                 if seed is not None else None))
    luxun = wordpiece_train.count_words(_lines("luxun", 20, draw(seed, SEED + 2)
                                               if seed is not None else None),
                                        tokenize_chinese_chars=False)
    tables += [_top(stories, 40), _top(stories, 200), _top(luxun, 60)]
    return [Case((t,), wordpiece_train.best_pair(t)) for t in tables]


@functools.lru_cache(maxsize=None)
def _trained(name: str, seed: int | None) -> tuple[dict[str, int], list[str]]:
    """(vocabulary as piece -> id, test words) from a slice of `name`: trained on its first lines,
    tested on the words of the lines after them (some need [UNK])."""
    rng = None if seed is None else draw(seed, SEED + 3 + (name == "luxun"))
    chinese = {"tokenize_chinese_chars": False} if name == "luxun" else {}
    lines = _lines(name, 60, rng)
    train, test = lines[:40], lines[40:]
    counts = wordpiece_train.count_words(train, **chinese)
    alphabet = {s for w in counts for s in wordpiece_train.split_word(w)}
    vocab = wordpiece_train.train_wordpiece(train, len(alphabet) + 150, **chinese).vocab
    words = sorted(wordpiece_train.count_words(test, **chinese), key=lambda w: (len(w), w))
    return {piece: i for i, piece in enumerate(vocab)}, words[::max(1, len(words) // 15)][:15]


def _encode_cases(seed: int | None = None) -> list[Case]:
    """Longest (not shortest) match, ## after the first piece, [UNK] for the whole word, the
    length limit at and past it, then words of real text with a vocabulary trained beside them."""
    toy = {p: i for i, p in enumerate(["[UNK]", "u", "un", "unaff", "##n", "##a", "##f", "##aff",
                                       "##able", "##b", "##l", "##e", "able", "a", "b"])}
    cases = [("unaffable", toy, 100), ("unable", toy, 100), ("able", toy, 100),
             ("abc", toy, 100), ("xun", toy, 100), ("unable", toy, 6), ("unable", toy, 5),
             ("a", toy, 100), ("ba", toy, 100)]
    rng = draw(seed, SEED)
    letters = ["a", "b", "ab", "##a", "##b", "##ab", "##ba", "##aba"]
    for _ in range(15):
        pieces = sorted(set(rng.sample(letters, rng.randint(2, len(letters)))) | {"[UNK]"})
        vocab = {p: i for i, p in enumerate(pieces)}
        word = "".join(rng.choice("ab") for _ in range(rng.randint(1, 7)))
        cases.append((word, vocab, rng.choice([100, 100, 4])))
    for name in ("tinystories", "luxun"):
        vocab, words = _trained(name, seed)
        cases += [(w, vocab, 100) for w in words]
    return [Case((w, v, n), wordpiece.encode_word(w, v, max_input_chars_per_word=n))
            for w, v, n in cases]


register(Exercise(
    key="11.wordpiece_score",
    title="练习 1：WordPiece 先合并哪一对",
    concept="WordPiece 不是挑出现次数最多的一对，而是挑 freq(ab) / (freq(a) × freq(b)) 最大的一对："
            "两个部分单独出现得越少、一起出现得越多，分数越高。词先拆成首字符和带 ## 的后续字符"
            "（hug → h ##u ##g），所有频率都按词频加权，一个词里出现两次的符号算两次。",
    recipe="对每个 (word, n)：symbols = [word[0]] + ['##' + c for c in word[1:]]；"
           "每个符号 freq[s] += n，每个相邻对 pairs[(a, b)] += n。然后对每一对算 "
           "score = pairs[p] / (freq[a] * freq[b])，返回 min(pairs, key=lambda p: "
           "(-score(p), -pairs[p], p))：分数最高，平局时次数多的，再平局时 (a, b) 较小的。",
    make_cases=_score_cases,
    library_twins=("tutorial_lib.tokenization.wordpiece_train.best_pair",
                   "tutorial_lib.tokenization.wordpiece_train.pair_scores"),
))

register(Exercise(
    key="11.encode_word",
    title="练习 2：最长匹配编码一个词（BERT 的做法）",
    concept="从左往右，每个位置取词表里从这里开始的最长的一块；第一块之后的块要带 ## 去词表里找。"
            "只要某个位置一块都找不到，整个词就是一个 [UNK]（不是只把那一个字符换掉）；"
            "词长超过 max_input_chars_per_word 也直接是 [UNK]。",
    recipe="if len(word) > max_input_chars_per_word: return ['[UNK]']；start = 0；"
           "当 start < len(word)：end 从 len(word) 往下试到 start + 1，piece = word[start:end]，"
           "start > 0 时在前面加 '##'，第一个在 vocab 里的就收下，start = end；"
           "一个都没有就 return ['[UNK]']。最后返回收下的块。",
    make_cases=_encode_cases,
    library_twins=("tutorial_lib.tokenization.wordpiece.encode_word",
                   "tutorial_lib.tokenization.wordpiece.WordPiece.tokenize_word"),
))
