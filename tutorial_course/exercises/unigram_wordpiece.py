"""Chapter 11's training exercises, a second module beside `ch11` (which imports it): the WordPiece
training loop and one Unigram pruning round. The oracles are the trainers the chapter runs:
`wordpiece.train.train_wordpiece` and the pruning step of `unigram.train.train_unigram`.

WordPiece: a table of word counts becomes a text that holds each word that many times, and the
trainer's first k merges are the answer. The Lu Xun words keep runs of Han characters together
(`tokenize_chinese_chars=False`), so the trainer is run that way for every table: it cuts no
table's word apart (`count_words` of the text is the table again).

Unigram: `unigram.train.prune_step` is the round `train_unigram` runs, on a given vocabulary (as
`em_step` is its EM step). The log-probs are
rounded to multiples of 1/1024 (as for 11.viterbi) so that every Viterbi comparison is exact and
the tie rule decides; and no case has two losses within rounding of each other at the cut
(`_clean_cut`), so that a learner who adds up the loss in another order cuts the same pieces.
"""

from __future__ import annotations

import functools
import math
import random


from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.unigram import train as unigram_train
from tutorial_lib.wordpiece import train as wordpiece_train

SEED = 1111  # the public cases' random numbers
HAN_RUNS = {"tokenize_chinese_chars": False}  # a Lu Xun word is a run of Han characters


def _lines(name: str, n: int, rng: random.Random | None) -> list[str]:
    """n non-blank lines of a corpus: the first n (public cases) or from an offset rng draws."""
    lines = [line for line in data.load_text(name).splitlines() if line.strip()]
    start = 0 if rng is None else rng.randrange(len(lines) - n)
    return lines[start:start + n]


def _dyadic(log_probs: dict[str, float]) -> dict[str, float]:
    """Each log-prob rounded to a multiple of 1/1024: sums of them are exact in float64."""
    return {piece: round(value * 1024) / 1024 for piece, value in log_probs.items()}


# --- WordPiece: the training loop -----------------------------------------------------------------

def library_merges(word_counts: dict[str, int], k: int) -> list[tuple[str, str]]:
    """The first k merges (as pairs) that `train_wordpiece` makes on a text with these word counts;
    fewer if it runs out of pairs. Each merge adds at most one piece, so a target of [UNK] +
    alphabet + k pieces runs at least k merges when there are pairs left."""
    text = [" ".join([word] * n) for word, n in word_counts.items()]
    alphabet = {s for word in word_counts for s in wordpiece_train.split_word(word)}
    trained = wordpiece_train.train_wordpiece(text, 1 + len(alphabet) + k, **HAN_RUNS)
    return [merge.pair for merge in trained.merges[:k]]


def _random_table(rng: random.Random) -> dict[str, int]:
    letters = rng.choice(["ab", "abc", "aab", "abcd"])
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
                    for _ in range(rng.randint(2, 6))})
    return {w: rng.randint(1, 6) for w in words}


def _merges_cases(seed: int | None = None) -> list[Case]:
    """The chapter's toy (score and count disagree), ties of score with and without a tie of count,
    a repeated symbol, a table that runs out of pairs, random tables, then real word counts."""
    cases = [
        ({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 4),  # ##g ##s, then pu, hu, bu
        ({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 12),
        ({"ab": 1, "cd": 1}, 2),  # equal scores and counts: the smaller pair first
        ({"cd": 2, "ab": 1, "a": 1}, 1),  # equal scores 2/4 and 1/2: the higher count first
        ({"aaaa": 1}, 5),  # a ##a ##a ##a: three merges, then nothing is left to merge
        ({"abab": 2, "ab": 1, "b": 3}, 4),
        ({"the": 50, "then": 2, "hen": 9, "he": 4}, 5),
    ]
    rng = draw(seed, SEED)
    cases += [(_random_table(rng), rng.randint(1, 6)) for _ in range(12)]
    stories = wordpiece_train.count_words(_lines("tinystories", 30, draw(seed, SEED + 1)
                                                 if seed is not None else None))
    luxun = wordpiece_train.count_words(_lines("luxun", 20, draw(seed, SEED + 2)
                                               if seed is not None else None), **HAN_RUNS)
    cases += [(dict(stories), 30), (dict(luxun), 25)]
    return [Case((table, k), library_merges(table, k)) for table, k in cases]


register(Exercise(
    key="11.wordpiece_merges",
    points=3,
    title="练习 5：WordPiece 的训练循环",
    concept="训练就是把练习 4 的那一步反复做 k 次：按当前的切分数出每个符号的频率和每个相邻对的"
            "次数（都按词频加权），取 score = 次数 / (freq(a) × freq(b)) 最高的一对（平局取次数多"
            "的，再平局取 (a, b) 较小的），在每个词里把它合并成一块，再重新数。合并改变了 a、b "
            "各自的频率，所以别的对的分数也会变：每一步都要用合并后的切分重新算。",
    recipe="words = [([w[0]] + ['##' + c for c in w[1:]], n) for w, n in word_counts.items()]；"
           "重复 k 次：freq、pairs 从 words 重新数（每个符号 freq[s] += n，每个相邻对 pairs[(a, b)]"
           " += n）；pairs 为空就停；best = min(pairs, key=lambda p: (-pairs[p] / (freq[p[0]] * "
           "freq[p[1]]), -pairs[p], p))；记下 best；新块 = a + b[2:]（b 总以 ## 开头）；每个词从左"
           "往右扫，遇到相邻的 a、b 就换成新块并跳过两格，否则照抄一格。返回记下的对。",
    make_cases=_merges_cases,
    library_twins=("tutorial_lib.wordpiece.train.train_wordpiece",
                   "tutorial_lib.wordpiece.train._State.merge"),
))


# --- Unigram: one pruning round -------------------------------------------------------------------

def library_prune(words: dict[str, int], log_probs: dict[str, float], vocab_size: int,
                  shrinking_factor: float) -> dict[str, float]:
    """{piece removed: its loss} of one pruning round of `train_unigram` on this vocabulary."""
    return dict(unigram_train.prune_step(words, log_probs, vocab_size, shrinking_factor).removed)


def _clean_cut(words: dict[str, int], log_probs: dict[str, float], vocab_size: int,
               shrinking_factor: float) -> bool:
    """Whether the last piece cut and the first kept are told apart by more than rounding: either
    one is free (no best path uses it: loss 0) and the other is not, or both are free (the piece
    string decides), or their losses differ by more than the checker's tolerance. The first kept
    piece is the one a round that cuts one piece more removes last."""
    size = len(log_probs)
    cut = size - max(vocab_size, int(size * shrinking_factor))
    longer = sum(len(p) > 1 for p in log_probs)
    if cut <= 0 or cut >= longer:
        return True
    one_more = unigram_train.prune_step(words, log_probs, size - cut - 1, 1e-9).removed
    (_, a), (_, b) = one_more[cut - 1], one_more[cut]
    if a == 0.0 or b == 0.0:
        return True
    return abs(a - b) > 1e-9 * max(abs(a), abs(b)) + 1e-12


@functools.lru_cache(maxsize=None)
def _trained(name: str, seed: int | None) -> tuple[dict[str, int], dict[str, float]]:
    """(pre-token counts of 120 lines of `name`, the rounded log-probs of a small Unigram model
    trained on them): a vocabulary whose pieces are all in use, so each cut costs something."""
    text = "\n".join(_lines(name, 120, None if seed is None else
                            draw(seed, SEED + 3 + (name == "luxun"))))
    words = dict(unigram_train.count_words(text))
    alphabet = len({c for w in words for c in w})
    model = unigram_train.train_unigram(text, alphabet + 200, seed_size=3000, max_piece_length=8)
    return words, _dyadic(model.log_probs)


@functools.lru_cache(maxsize=None)
def _first_round(seed: int | None) -> tuple[dict[str, int], dict[str, float]]:
    """(pre-token counts of 80 TinyStories lines, the rounded log-probs where training stands at
    its first pruning: the seed vocabulary after two EM steps, many seed pieces unused)."""
    text = "\n".join(_lines("tinystories", 80, None if seed is None else draw(seed, SEED + 5)))
    words = dict(unigram_train.count_words(text))
    scores = unigram_train.seed_vocabulary(words, 300, 8)
    total = sum(scores.values())
    log_probs = {p: math.log(v / total) for p, v in scores.items()}
    for _ in range(2):
        updated = unigram_train.em_step(words, log_probs)[0]
        log_probs = {p: updated[p] for p in log_probs}
    return words, _dyadic(log_probs)


def _random_pruning(rng: random.Random) -> tuple[dict, dict, int, float]:
    """A few ▁-words over a small alphabet, their characters and some substrings at random
    log-probs (multiples of 1/8), a random target; drawn again until the cut is clean."""
    while True:
        letters = rng.choice(["ab", "abc"])
        found = sorted({"▁" + "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
                        for _ in range(rng.randint(1, 4))})
        words = {w: rng.randint(1, 5) for w in found}
        pieces = {c for w in found for c in w} | {w[i:i + k] for w in found for k in (2, 3, 4)
                                                  for i in range(len(w) - k + 1)
                                                  if rng.random() < 0.5}
        log_probs = {p: -rng.randint(1, 40) / 8 for p in sorted(pieces)}
        size, factor = rng.randint(1, len(log_probs)), rng.choice([0.5, 0.75, 0.9])
        if any(len(p) > 1 for p in log_probs) and _clean_cut(words, log_probs, size, factor):
            return words, log_probs, size, factor


def _pruning_cases(seed: int | None = None) -> list[Case]:
    """Hand cases (a free piece, a tie of free pieces decided by the string, the target or the
    factor binding, more to cut than there are longer pieces), random toys, then real text: a
    trained TinyStories model cut by the factor, a trained Lu Xun model cut to a target, and
    TinyStories where training stands at its first pruning round."""
    hand = {"▁": -2.0, "a": -3.0, "b": -3.0, "c": -3.0, "▁a": -2.0, "ab": -3.0, "▁ab": -2.0,
            "bc": -4.0, "ca": -6.0}
    words = {"▁ab": 3, "▁abc": 1}
    cases = [(words, hand, 6, 0.75), (words, hand, 8, 0.5), (words, hand, 1, 0.1),
             ({"▁abab": 2, "▁ab": 1, "▁b": 3}, {"▁": -2.0, "a": -2.0, "b": -2.0, "ab": -1.0,
                                                 "▁ab": -2.5, "▁abab": -6.0, "ba": -3.0}, 4, 0.5)]
    # ab is used, but its parts are so common that the estimate gains by removing it: a negative
    # loss, which still goes after the free pieces (ba before ▁ab: "b" < "▁")
    common = {"▁": -2.0, "a": -2.0, "b": -2.0, "ab": -1.0, "▁ab": -9.0, "ba": -8.0}
    cases += [({"▁ab": 1, "▁a": 5, "▁b": 5}, common, 5, 0.5),
              ({"▁ab": 1, "▁a": 5, "▁b": 5}, common, 3, 0.5)]
    rng = draw(seed, SEED + 6)
    cases += [_random_pruning(rng) for _ in range(12)]
    stories, luxun = _trained("tinystories", seed), _trained("luxun", seed)
    cases.append((*stories, 1, next(f for f in (0.75, 0.7, 0.8, 0.65, 0.85)
                                    if _clean_cut(*stories, 1, f))))
    cases.append((*luxun, next(size for size in range(len(luxun[1]) - 40, 0, -1)
                               if _clean_cut(*luxun, size, 0.75)), 0.75))
    first = _first_round(seed)
    cases.append((*first, 1, next(f for f in (0.75, 0.7, 0.8, 0.65, 0.85)
                                  if _clean_cut(*first, 1, f))))
    # 11 significant digits (the check allows 1e-9): numpy's log can differ in the last bit from
    # one machine to another, and the public cases must be the same everywhere
    return [Case((w, lp, size, factor), {p: float(f"{loss:.11g}") for p, loss in
                                         library_prune(w, lp, size, factor).items()})
            for w, lp, size, factor in cases]


register(Exercise(
    key="11.prune_round",
    points=3,
    title="练习 3：Unigram 的一轮剪枝",
    concept="删一个多字子词 x 的代价这样估计：各词的 Viterbi 切分里 x 的每次使用，都改用 x 这段"
            "文字不许用 x 时的 Viterbi 切分（x 的第二好切法），按切分里的次数重新估概率，看对数"
            "似然少了多少，再乘上用到 x 的词在所有词里的份额。没有哪条最佳切分用到的子词删了不花"
            "代价（损失 0.0），最先删；其余按损失从小到大删，损失相同按子词字符串。单字永远不删；"
            "留下 max(vocab_size, int(len(log_probs) × shrinking_factor)) 个。",
    recipe="对每个词求 Viterbi 切分：freq[x] += n（每次出现），users[x] += n（每个词只算一次）；"
           "total = sum(freq.values())，N = sum(words.values())。对每个多字子词 x：freq[x] == 0 "
           "时损失 0.0；否则 alt = x 自身文本不用 x 的 Viterbi 切分，k = len(alt)，f = freq[x]，"
           "损失 = users[x] / N * (log(f) - log(total) - sum(log(freq[m] + f) - log(total + "
           "f * (k - 1)) for m in alt))。多字子词按 (freq[x] > 0, 损失, x) 排序，取前 "
           "len(log_probs) - max(vocab_size, int(len(log_probs) * shrinking_factor)) 个，返回 "
           "{x: 损失}。",
    make_cases=_pruning_cases,
    library_twins=("tutorial_lib.unigram.train.prune_step",
                   "tutorial_lib.unigram.train._prune",
                   "tutorial_lib.unigram.train._losses"),
))
