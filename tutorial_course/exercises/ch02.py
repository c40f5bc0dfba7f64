"""Chapter 02 exercises: the steps of character BPE and the training loop; the oracle is `bpe_toy`,
the module they teach."""

from __future__ import annotations

import random

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib.bpe import bpe_toy


def _random_corpus(rng: random.Random) -> dict[tuple[str, ...], int]:
    """A small corpus in training form: words over a tiny alphabet (so runs like "a a a" occur),
    plus </w>."""
    words = {
        "".join(rng.choice("aab") for _ in range(rng.randint(1, 6)))
        for _ in range(rng.randint(2, 6))
    }
    return {tuple(word) + (bpe_toy.EOW,): rng.randint(1, 9) for word in sorted(words)}


def _count_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 2)
    corpora = [{("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "s", "t", "</w>"): 2},
               {("a", "a", "a", "</w>"): 1}]
    corpora += [_random_corpus(rng) for _ in range(20)]
    return [Case((corpus,), bpe_toy.count_pairs(corpus)) for corpus in corpora]


def _merge_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 2)
    cases = [(("n", "e", "w", "e", "r", "</w>"), ("e", "r")), (("a", "a", "a", "</w>"), ("a", "a")),
             (("ab", "c", "</w>"), ("b", "c"))]
    for _ in range(30):
        symbols = tuple(rng.choice(["a", "a", "b", "ab"]) for _ in range(rng.randint(1, 7))) + (
            "</w>",
        )
        cases.append((symbols, (rng.choice("ab"), rng.choice(["a", "b", "</w>"]))))
    return [Case((symbols, pair), bpe_toy.merge_pair(symbols, pair)) for symbols, pair in cases]


def _random_word_corpus(rng: random.Random) -> dict[str, int]:
    """A {word: frequency} corpus over a tiny alphabet with small frequencies, so that tied counts
    are common."""
    letters = rng.choice(["ab", "aab", "abc"])
    words = sorted(
        {
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 5)))
            for _ in range(rng.randint(1, 5))
        }
    )
    rng.shuffle(words)  # under the "first" rule the order of the words decides ties
    return {word: rng.randint(1, 4) for word in words}


def _train_cases(seed: int | None = None) -> list[Case]:
    """The chapter's corpora, cases that stop early or learn nothing, then random corpora full of
    ties.

    The expected merges come from `bpe_toy.train` with the chapter's rule, "first": among tied
    pairs, the one met first scanning the words in the corpus's order, each from left to right.
    """
    rng = draw(seed, 2)
    cases = [({"low": 5, "lowest": 2, "newer": 6, "wider": 3}, 6),
             ({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10),
             ({"low": 3, "lo": 1}, 2), ({"ab": 1, "bc": 2}, 1), ({"ba": 1, "ab": 1}, 1),
             ({"aaaa": 1}, 5), ({"ab": 2}, 0)]
    cases += [(_random_word_corpus(rng), rng.randint(1, 8)) for _ in range(25)]
    return [
        Case((corpus, n), bpe_toy.train(corpus, n, tie_break="first").merges) for corpus, n in cases
    ]


def _encode_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 2)
    cases = [
        ("lowing", [("l", "o"), ("lo", "w"), ("w", "i")]),
        ("lowing", [("w", "i"), ("l", "o"), ("lo", "w")]),
        ("abc", [("b", "c"), ("a", "b")]),
    ]
    for _ in range(20):
        merges = bpe_toy.train(
            {
                "".join(rng.choice("ab") for _ in range(rng.randint(1, 6))): rng.randint(1, 9)
                for _ in range(4)
            },
            6,
        ).merges
        rng.shuffle(merges)
        cases.append(("".join(rng.choice("ab") for _ in range(rng.randint(1, 8))), merges))
    return [Case((word, merges), bpe_toy.encode_word(word, merges)) for word, merges in cases]


register(Exercise(
    key="02.count_pairs",
    points=2,
    title="练习 1：统计相邻符号对（按词频加权）",
    concept="一个词在语料里出现 freq 次，它里面的每一对相邻符号也就出现 freq 次；"
            "同一个词里出现两次的符号对（比如 a a a 里的 a + a）要算两次。",
    recipe="对 corpus.items() 里的每个 (symbols, freq)，遍历 zip(symbols, symbols[1:]) "
           "给出的每一对，"
           "counts[pair] = counts.get(pair, 0) + freq，而不是加 1。",
    make_cases=_count_cases,
    library_twins=("tutorial_lib.bpe.bpe_toy.count_pairs",),
))

register(Exercise(
    key="02.merge_pair",
    points=2,
    title="练习 2：合并一个符号对",
    concept="从左往右扫，合并不重叠的出现：a a a 合并 a + a 得到 aa a，不是 aa aa。"
            "比较的是符号，不是拼起来的字符串：ab c 里并没有 b + c 这一对。",
    recipe="下标 i 从 0 开始：如果 i + 1 < len(symbols) 且 (symbols[i], symbols[i + 1]) == pair，"
           "就输出 symbols[i] + symbols[i + 1] 并 i += 2；否则照抄 symbols[i] 并 i += 1。最后返回 "
           "tuple(out)。",
    make_cases=_merge_cases,
    library_twins=("tutorial_lib.bpe.bpe_toy.merge_pair",),
))

register(
    Exercise(
        key="02.train",
        points=3,
        title="练习 3：训练 BPE，学出合并表",
        concept="训练就是把练习 1、2 串成一个循环：每一步在当前语料上按词频统计相邻对，"
                "取次数最多的一对"
        "（并列时取最先数到的那一对，即 first 规则），在每个词里合并它，再把它追加到合并表；"
        "所有词都只剩一个符号、数不出任何一对时，提前结束。",
        recipe="words = {tuple(w) + ('</w>',): f for w, f in corpus.items()}；循环 num_merges 次："
        "counts = count_pairs(words)，counts 为空就 break；best = max(counts, key=counts.get)"
        "（并列时 max 返回最先插入字典的那一对，正好是 first 规则；不要按符号对本身排序）；"
        "words = {merge_pair(s, best): f for s, f in words.items()}；merges.append(best)。"
        "最后 return merges。",
        make_cases=_train_cases,
        library_twins=("tutorial_lib.bpe.bpe_toy.train",),
    )
)

register(Exercise(
    key="02.encode_word",
    points=2,
    title="练习 4：按排名编码一个词",
    concept="先合并哪一对由排名决定（在 merges 里越靠前，越早学到，越先用），不看它在词里的位置。",
    recipe="把词拆成字符再加上 '</w>'；每一轮在当前相邻对里找出在 merges 里、排名最小的那一对"
           "（先做一个字典 {pair: 排名}），用 merge_pair 合并它的所有出现；"
           "直到没有相邻对在 merges 里，"
           "返回符号列表。",
    make_cases=_encode_cases,
    library_twins=("tutorial_lib.bpe.bpe_toy.encode_word",),
))
