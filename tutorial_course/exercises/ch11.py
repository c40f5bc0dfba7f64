"""Chapter 11 exercises: WordPiece's score and its longest-match encoder, Unigram's Viterbi pass
and the E-step of its EM; the oracles are `wordpiece_train.best_pair`, `wordpiece.encode_word`,
`unigram.viterbi` and `unigram_train.em_step`, the modules the chapter teaches.

The real-text cases cut a slice of TinyStories and of Lu Xun (the hidden cases cut another one,
chosen by `draw`). For WordPiece the Lu Xun words keep runs of Han characters together
(`tokenize_chinese_chars=False`), so a word can be long and hold a character the vocabulary lacks.
For Unigram a small model is trained on the slice and applied to the pre-tokens of the lines after
it (a Lu Xun line is one pre-token); each case carries only the pieces its text can use.

The two training exercises (WordPiece's loop, one Unigram pruning round) live in
`unigram_wordpiece`, imported here so that they register with the chapter.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_course.exercises import unigram_wordpiece  # noqa: F401 - registers exercises 3 and 5
from tutorial_lib import data
from tutorial_lib.unigram import byte_fallback
from tutorial_lib.unigram import model as unigram
from tutorial_lib.unigram import train as unigram_train
from tutorial_lib.wordpiece import model as wordpiece
from tutorial_lib.wordpiece import train as wordpiece_train

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
    # the limit counts characters, not UTF-8 bytes: 34 Han characters are 102 bytes
    han = {p: i for i, p in enumerate(["[UNK]", "人", "人工", "##人", "##人工", "##工", "##智能"])}
    cases += [(word, han, 100)
              for word in ("人工智能" * 8 + "人工", "人工" * 50, "人工" * 50 + "人")]
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
    points=2,
    title="练习 4：WordPiece 先合并哪一对",
    concept="WordPiece 不是挑出现次数最多的一对，而是挑 freq(ab) / (freq(a) × freq(b)) 最大的一对："
            "两个部分单独出现得越少、一起出现得越多，分数越高。词先拆成首字符和带 ## 的后续字符"
            "（hug → h ##u ##g），所有频率都按词频加权，一个词里出现两次的符号算两次。",
    recipe="对每个 (word, n)：symbols = [word[0]] + ['##' + c for c in word[1:]]；"
           "每个符号 freq[s] += n，每个相邻对 pairs[(a, b)] += n。然后对每一对算 "
           "score = pairs[p] / (freq[a] * freq[b])，返回 min(pairs, key=lambda p: "
           "(-score(p), -pairs[p], p))：分数最高，平局时次数多的，再平局时 (a, b) 较小的。",
    make_cases=_score_cases,
    library_twins=("tutorial_lib.wordpiece.train.best_pair",
                   "tutorial_lib.wordpiece.train.pair_scores"),
))

register(Exercise(
    key="11.encode_word",
    points=3,
    title="练习 6：最长匹配编码一个词（BERT 的做法）",
    concept="从左往右，每个位置取词表里从这里开始的最长的一块；第一块之后的块要带 ## 去词表里找。"
            "只要某个位置一块都找不到，整个词就是一个 [UNK]（不是只把那一个字符换掉）；"
            "词长（字符数，不是 UTF-8 字节数）超过 max_input_chars_per_word 也直接是 [UNK]。",
    recipe="if len(word) > max_input_chars_per_word: return ['[UNK]']；start = 0；"
           "当 start < len(word)：end 从 len(word) 往下试到 start + 1，piece = word[start:end]，"
           "start > 0 时在前面加 '##'，第一个在 vocab 里的就收下，start = end；"
           "一个都没有就 return ['[UNK]']。最后返回收下的块。",
    make_cases=_encode_cases,
    library_twins=("tutorial_lib.wordpiece.model.encode_word",
                   "tutorial_lib.wordpiece.model.WordPiece.tokenize_word"),
))


# --- Unigram: the Viterbi pass and the E-step -----------------------------------------------------

def _dyadic(log_probs: dict[str, float]) -> dict[str, float]:
    """Each log-prob rounded to a multiple of 1/1024. Sums of such numbers (down to -16384, far
    below any case's) are exact in float64 and in the float32 that unigram.viterbi adds with, in
    any order: a learner's DP meets exactly the ties the library meets, and the tie rule decides."""
    return {piece: round(value * 1024) / 1024 for piece, value in log_probs.items()}


def _toy_log_probs(rng: random.Random, texts: list[str]) -> dict[str, float]:
    """Every character of `texts` and a random share of their substrings of 2-4 characters, each
    scoring -k/8 (k = 1..40)."""
    pieces = {c for t in texts for c in t} | {t[i:i + k] for t in texts for k in (2, 3, 4)
                                              for i in range(len(t) - k + 1) if rng.random() < 0.4}
    return {p: -rng.randint(1, 40) / 8 for p in sorted(pieces)}


@functools.lru_cache(maxsize=None)
def _unigram(name: str, seed: int | None) -> tuple[dict[str, float], dict[str, int]]:
    """(log-probs of a small Unigram model trained on the first 150 lines of a slice of `name`,
    the counts of the pre-tokens of the 20 lines after them; a Lu Xun line is one pre-token)."""
    lines = _lines(name, 170, None if seed is None else draw(seed, SEED + 7 + (name == "luxun")))
    train = "\n".join(lines[:150])
    alphabet = len({c for w in unigram_train.count_words(train) for c in w})
    model = unigram_train.train_unigram(train, alphabet + 300, seed_size=5000, max_piece_length=8)
    return model.log_probs, dict(unigram_train.count_words("\n".join(lines[150:])))


def _used(log_probs: dict[str, float], words: list[str]) -> dict[str, float]:
    """The pieces of `log_probs` that occur in `words`, plus each character it lacks at its lowest
    score minus UNK_PENALTY (as byte fallback scores it), rounded by `_dyadic`: a small dict per
    case, in which every word has a segmentation."""
    used = {edge.piece for word in words for edge in unigram.lattice(word, log_probs)}
    floor, _ = byte_fallback.table_bounds(log_probs)
    table = {p: v for p, v in log_probs.items() if p in used}
    return _dyadic({**table, **{c: floor for w in words for c in w if c not in log_probs}})


def _spread(words: Iterable[str], n: int) -> list[str]:
    """n of `words` (n >= 2), evenly from the shortest to the longest, both included."""
    ranked = sorted(words, key=lambda w: (len(w), w))
    return sorted({ranked[i * (len(ranked) - 1) // (n - 1)] for i in range(n)}, key=ranked.index)


def _viterbi_cases(seed: int | None = None) -> list[Case]:
    """A tie, greedy longest match beaten twice, single characters only, a best path through the
    least probable piece; random toys; words of held-out text under a model trained beside it."""
    cases = [
        ("ab", {"a": -1.0, "b": -1.0, "ab": -2.0}),  # a tie: ab, whose start is earliest
        ("哈哈哈", {"哈": -2.0, "哈哈": -4.0}),  # three paths tie: 哈 + 哈哈
        ("研究生命", {"研": -8.0, "究": -8.0, "生": -8.0, "命": -6.0, "研究": -4.0,
                  "研究生": -5.0, "生命": -4.0}),  # greedy: 研究生 命 (-11); best 研究 生命 (-8)
        ("▁abc", {"▁": -3.0, "a": -3.0, "b": -3.0, "c": -3.0, "▁a": -2.0, "bc": -2.0,
                  "▁ab": -6.0}),  # greedy: ▁ab c (-9); best ▁a bc (-4)
        ("abcab", {"a": -1.5, "b": -2.0, "c": -0.5}),
        ("北京大学", {"北": -3.0, "京": -3.0, "大": -3.0, "学": -3.0, "北京": -4.0, "大学": -4.0,
                  "京大": -5.0, "北京大学": -7.5}),  # the least probable piece is the best path
        ("a", {"a": -0.25, "b": -1.0}),
    ]
    rng = draw(seed, SEED + 5)
    for _ in range(20):
        letters = rng.choice(["ab", "abc", "▁ab"])
        text = "".join(rng.choice(letters) for _ in range(rng.randint(1, 9)))
        cases.append((text, _toy_log_probs(rng, [text])))
    for name, n in (("tinystories", 12), ("luxun", 6)):
        log_probs, words = _unigram(name, seed)
        cases += [(w, _used(log_probs, [w])) for w in _spread(words, n)]
    return [Case((t, lp), unigram.viterbi(t, lp)[0]) for t, lp in cases]


def _counts_cases(seed: int | None = None) -> list[Case]:
    """The toy worked out by hand (9/11, 1/11, 3/11, 2/11, 8/11 and 0.0 for c), a word with one
    segmentation, counts above 1, random toys, then a few dozen pre-tokens of held-out text."""
    half, eighth = math.log(1 / 2), math.log(1 / 8)
    hand = {"▁": half, "a": eighth, "b": eighth, "▁a": eighth, "ab": eighth, "c": eighth}
    cases = [({"▁ab": 1}, hand), ({"▁ab": 3, "▁b": 2}, hand),
             ({"▁abc": 2}, {"▁": -1.0, "a": -2.0, "b": -2.0, "c": -3.0, "xy": -1.0})]
    rng = draw(seed, SEED + 6)
    for _ in range(15):
        letters = rng.choice(["ab", "abc"])
        words = sorted({"▁" + "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
                        for _ in range(rng.randint(1, 4))})
        cases.append(({w: rng.randint(1, 5) for w in words}, _toy_log_probs(rng, words)))
    stories, stories_words = _unigram("tinystories", seed)
    luxun, luxun_words = _unigram("luxun", seed)
    for log_probs, words in ((stories, _top(stories_words, 30)), (stories, stories_words),
                             (luxun, {w: luxun_words[w] for w in _spread(luxun_words, 8)})):
        cases.append((words, _used(log_probs, list(words))))
    # 11 significant digits (the check allows 1e-9): numpy's exp can differ in the last bit from
    # one machine to another, and the public cases must be the same everywhere
    return [Case((w, lp), {p: float(f"{c:.11g}") for p, c in unigram_train.em_step(w, lp)[1]
                           .items()}) for w, lp in cases]


register(Exercise(
    key="11.viterbi",
    points=3,
    title="练习 1：用 Viterbi 找得分最高的切分（Unigram 怎么编码）",
    concept="Unigram 给一种切分打的分是它各块的 log 概率之和，编码取分数最高的那种；最长匹配不一定"
            "最好（研究生 命 不如 研究 生命）。不必列出所有切分：到位置 i（text[:i]）的最好路径，"
            "是某个更早的位置 j 的最好路径再接上一块 text[j:i]，所以 best[i] = 所有 j 里 best[j] + "
            "log_probs[text[j:i]] 最大的那个，顺手记下这块从 j 开始，最后从末尾往回走就得到各块。"
            "分数相同时照库的规则：对每个 i，j 从左往右试，后来的候选要严格更高才换掉先来的，所以"
            "平局时最后一块起点最早（最长）的那条路赢。log_probs 里有 text 的每个字符。",
    recipe="n = len(text)；best = [0.0] + [None] * n；back = [0] * (n + 1)。对 end = 1..n，"
           "对 start = 0..end-1（从左往右）：piece = text[start:end]，若 piece 在 log_probs 里且 "
           "best[start] 不是 None，score = best[start] + log_probs[piece]；若 best[end] 是 None "
           "或 score > best[end]（严格大于），就 best[end], back[end] = score, start。然后 "
           "end = n，反复把 text[back[end]:end] 放进列表、end = back[end]，直到 end == 0，"
           "最后把列表倒过来返回。",
    make_cases=_viterbi_cases,
    library_twins=("tutorial_lib.unigram.model.viterbi",
                   "tutorial_lib.unigram.model.viterbi_table",
                   "tutorial_lib.unigram.model.best_steps",
                   "tutorial_lib.unigram.model.best_path",
                   "tutorial_lib.unigram.sample.nbest",
                   "tutorial_lib.unigram.byte_fallback.encode",
                   "tutorial_lib.unigram.byte_fallback.encode_words",
                   "tutorial_lib.unigram.train.UnigramResult.encode",
                   "tutorial_lib.unigram.lattice.Passes.viterbi"),
))

register(Exercise(
    key="11.expected_counts",
    points=3,
    title="练习 2：EM 的 E 步：每块的期望次数（前向-后向）",
    concept="E 步不只数最好的那条路（那是硬 EM，Viterbi 计数），而是把一个词（pre-token）的"
            "每种切分都算上：切分的概率正比于各块概率之积，一块的期望次数 = 按这个概率加权、"
            "它在切分里出现的次数。前向-后向（forward-backward）不用列出切分：alpha[i] 是 "
            "word[:i] 所有路径的概率之和，beta[i] 是 word[i:] 的，边 word[s:e] 被用到的概率是 "
            "exp(alpha[s] + log_probs[piece] + beta[e] − alpha[len(word)])（alpha、beta 都取 "
            "log）。每个词的结果乘以它在 words 里的次数再相加。返回 log_probs 的每一块，没用到的"
            "是 0.0。要在 log 空间里用 log-sum-exp 相加：一行鲁迅是一个 pre-token，概率直接相乘"
            "会下溢成 0。",
    recipe="counts = {p: 0.0 for p in log_probs}。对每个 (word, n)：L = len(word)，edges = 所有 "
           "word[s:e] 在 log_probs 里的 (s, e)。alpha = [0.0] + [-inf] * L，对 e = 1..L："
           "alpha[e] = logsumexp([alpha[s] + log_probs[word[s:e]] for 每条以 e 结尾的边])；"
           "beta = [-inf] * L + [0.0]，对 s = L-1..0：beta[s] = logsumexp([log_probs[word[s:e]] + "
           "beta[e] for 每条从 s 开始的边])；然后对每条边 counts[word[s:e]] += n * math.exp("
           "alpha[s] + log_probs[word[s:e]] + beta[e] - alpha[L])。logsumexp(xs)：m = max(xs)，"
           "返回 m + math.log(sum(math.exp(x - m) for x in xs))。",
    make_cases=_counts_cases,
    library_twins=("tutorial_lib.unigram.train.em_step",
                   "tutorial_lib.unigram.train._Model.e_step",
                   "tutorial_lib.unigram.lattice.Passes.expected_counts"),
))
