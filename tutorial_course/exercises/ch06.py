"""Chapter 06 exercises: the ideas that make the trainer fast, then the trainer assembled from them.

The incremental update is compared with a full recount of the merged corpus (`trainer.count_pairs`).
The lazy heap is held to the library's own `trainer.pop_best` on what it returns *and* on what it
leaves in the heap: the answer alone cannot tell a heap from a scan of every count, and a pop that
finds nothing returns None, a legal answer, so the learner returns (pair or None, sorted(heap)).
That heap is the library's without the byte keys (`trainer.heap_entries` without `keys`): entries
(-count, a, b), ties to the smallest (a, b), so that a case can be worked through by hand.

The assembled trainer is held to `trainer.train_bpe` merge for merge on slices of TinyStories (split
into its documents, as everywhere in the course) and of Lu Xun, and on small texts full of ties: it
must break ties as train_bpe does (greatest bytes, chapter 05), which is why it uses the library's
heap with byte keys. The merges alone cannot tell incremental counting from a recount after every
merge, and a clock would judge the machine as much as the code; so the trainer is handed the pair
counts, already counted, in a `PairCounts` that counts its writes, keeps them up to date in place
and returns them with the merges (`wire` sends them back as what they hold and how often they
were written). They must end as the counts of the merged words, written at most twice per pair
of each word the index hands over, before and after the merge (a decrement and the deletion of a
count that reached 0), plus one count of every word: the reference writes about half of that, a
trainer that rebuilds the counts after each merge several times as much on TinyStories. Work done
on other objects is out of its sight: a trainer that recounts into a dict of its own and writes
back only what changed would pass; the notebook then times the learner's trainer on its machine.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping
from typing import Any

from tutorial_course.exercises import Case, Exercise, draw, register, same_value
from tutorial_course.exercises.wire import RECORDERS, show, type_name
from tutorial_lib import data
from tutorial_lib.bpe.merge import merge
from tutorial_lib.bpe.trainer import (best_pair, count_pairs, heap_entries, pop_best,
                                      start_training, train_bpe)

NEW_ID = 9  # the id of the merged token in every case: larger than any id in the words


def _pair_counts(words: list[list[int]], freqs: list[int]) -> dict[tuple[int, int], int]:
    return dict(count_pairs(words, freqs))


def _update_case(words: list[list[int]], freqs: list[int], pair: tuple[int, int]) -> Case:
    merged = [merge(ids, pair, NEW_ID) for ids in words]
    return Case((words, freqs, _pair_counts(words, freqs), pair, NEW_ID),
                _pair_counts(merged, freqs))


def _update_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 6)
    cases = [_update_case([[0, 1]], [1], (0, 1)), _update_case([[2, 0, 1, 3]], [2], (0, 1)),
             _update_case([[0, 0, 0, 0]], [1], (0, 0)),  # a run: "aaaa" -> "AA", left to right
             _update_case([[0, 1, 0, 1], [2, 3]], [3, 5], (0, 1)),
             _update_case([[2, 3], [3, 2]], [1, 4], (2, 3))]
    for _ in range(40):
        words = [[rng.choice([0, 0, 1, 2, 3]) for _ in range(rng.randint(1, 7))]
                 for _ in range(rng.randint(1, 6))]
        freqs = [rng.randint(1, 9) for _ in words]
        pairs = sorted(_pair_counts(words, freqs))
        cases.append(_update_case(words, freqs, rng.choice(pairs) if pairs else (0, 1)))
    return cases


def _heap_case(pushed: dict[tuple[int, int], int], pair_counts: dict[tuple[int, int], int]
               ) -> Case:
    """A heap with one entry per pair, holding the count it was pushed with; the true counts now."""
    heap = heap_entries(pushed)
    heapq.heapify(heap)
    left = list(heap)
    best = pop_best(left, pair_counts)
    return Case((heap, pair_counts), (best, sorted(left)))


def _random_heap_case(rng: random.Random) -> Case:
    """Each entry holds a count its pair had earlier (never 0): the current one or more."""
    pairs = rng.sample([(a, b) for a in range(4) for b in range(4)], rng.randint(1, 8))
    pair_counts = {pair: rng.choice([0, 1, 2, 3, 4, 5, 6]) for pair in pairs}
    pushed = {pair: max(1, count + rng.choice([0, 0, 1, 3])) for pair, count in pair_counts.items()}
    return _heap_case(pushed, pair_counts)


def _pop_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 6)
    cases = [_heap_case({}, {}), _heap_case({(0, 1): 5}, {(0, 1): 5}),
             _heap_case({(0, 1): 3}, {(0, 1): 0}),
             _heap_case({(0, 1): 5, (1, 2): 4}, {(0, 1): 3, (1, 2): 4}),  # the top entry is stale
             _heap_case({(0, 1): 6, (1, 2): 4}, {(0, 1): 5, (1, 2): 4}),  # stale, still the best
             _heap_case({(1, 2): 4, (0, 3): 5}, {(1, 2): 4, (0, 3): 4}),  # a tie: the smaller pair
             _heap_case({(0, 1): 7, (1, 2): 6, (2, 3): 2}, {(0, 1): 1, (1, 2): 3, (2, 3): 2})]
    return cases + [_random_heap_case(rng) for _ in range(40)]


# small texts whose counts tie at the top, merged tokens too
TIE_TEXTS = ["ab ab cd cd", "aaaa aaaa bbbb", "xy yx xy yx zz", "the cat, the hat; a bat. a mat!",
             "我们，我们。你们！你们？"]


class PairCounts(dict):
    """The pair counts a trainer case hands `train_incremental`: a dict that counts its writes,
    each item set or deleted (update, pop, clear and the like count the items they change). A
    missing pair reads as 0 without being stored, so `counts[pair] += freq` works as on
    `count_pairs`'s defaultdict. It is sent back as `recorded()`: the nonzero counts (a count left
    at 0 is as good as deleted) and the number of writes."""

    def __init__(self, counts: Mapping[tuple[int, int], int] = ()) -> None:
        super().__init__(counts)  # filled by dict itself: no write counted
        self.writes = 0

    def __missing__(self, pair: tuple[int, int]) -> int:
        return 0

    def __setitem__(self, pair: tuple[int, int], count: int) -> None:
        self.writes += 1
        super().__setitem__(pair, count)

    def __delitem__(self, pair: tuple[int, int]) -> None:
        self.writes += 1
        super().__delitem__(pair)

    def pop(self, pair: tuple[int, int], *default: Any) -> Any:
        self.writes += pair in self
        return super().pop(pair, *default)

    def popitem(self) -> tuple[tuple[int, int], int]:
        self.writes += 1
        return super().popitem()

    def setdefault(self, pair: tuple[int, int], default: Any = None) -> Any:
        if pair not in self:
            self[pair] = default
        return dict.__getitem__(self, pair)

    def update(self, *others: Any, **more: Any) -> None:
        for pair, count in dict(*others, **more).items():
            self[pair] = count

    def __ior__(self, other: Any) -> PairCounts:
        self.update(other)
        return self

    def clear(self) -> None:
        self.writes += len(self)
        super().clear()

    def __reduce__(self) -> tuple:  # a copy goes on from the writes made so far
        return PairCounts, (dict(self),), {"writes": self.writes}

    def __repr__(self) -> str:
        return f"PairCounts({dict.__repr__(self)})"

    def recorded(self) -> dict:
        return {"counts": {pair: n for pair, n in dict.items(self) if n}, "writes": self.writes}


RECORDERS[PairCounts] = PairCounts.recorded


class KeptCounts:
    """The expected second half of a trainer's answer, the pair counts as `PairCounts.recorded`
    sends them: `counts` exactly, and at most `budget` writes: twice `work` (the pairs of every
    word the index hands over, before and after its merge; a decrement may be followed by a
    deletion) plus `start` (the pairs of all words, one more count). Its repr is such a record
    with the budget as the writes: what a function that knew the answer would return."""

    def __init__(self, counts: dict[tuple[int, int], int], work: int, start: int) -> None:
        self.counts, self.work, self.start = counts, work, start
        self.budget = 2 * work + start

    def __eq__(self, other: object) -> bool:
        if type(other) is PairCounts:  # the trainer called directly, as the tests do
            other = other.recorded()
        return (type(other) is dict and other.keys() == {"counts", "writes"}
                and type(other["writes"]) is int and other["writes"] <= self.budget
                and same_value(other["counts"], self.counts))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr({"counts": self.counts, "writes": self.budget})


def _replay(words: list[list[int]], freqs: list[int], vocab: dict[int, bytes],
            num_merges: int) -> tuple[dict[tuple[int, int], int], int]:
    """Train as `train_bpe_naive` does: (the counts of the merged words, the pairs of each word
    that held a merged pair, before and after its merge, summed over the merges)."""
    words, vocab, work = [list(ids) for ids in words], dict(vocab), 0
    for new_id in range(len(vocab), len(vocab) + num_merges):
        best = best_pair(count_pairs(words, freqs), vocab)
        if best is None:
            break
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        for i, ids in enumerate(words):
            if best in zip(ids, ids[1:]):
                words[i] = merge(ids, best, new_id)
                work += len(ids) + len(words[i]) - 2
    return dict(count_pairs(words, freqs)), work


def _train_case(texts: list[str], num_merges: int) -> Case:
    """train_incremental's arguments as `start_training` gives them, and the counts; train_bpe's
    merges and the counts kept as `KeptCounts` says expected."""
    vocab, words, freqs, merges_left = start_training(texts, 256 + num_merges)
    counts, work = _replay(words, freqs, vocab, merges_left)
    kept = KeptCounts(counts, work, sum(len(ids) - 1 for ids in words))
    return Case((words, freqs, vocab, merges_left, PairCounts(count_pairs(words, freqs))),
                (train_bpe(texts, 256 + num_merges)[1], kept))


def _explain_trainer(got: Any, expected: tuple) -> str:
    """A wrong trainer answer told by what is wrong in it: the merges, what came back as the
    counts, the counts, or the number of writes; "" (the usual 期望/得到) for anything else."""
    merges, kept = expected
    if type(got) not in (list, tuple) or len(got) != 2:
        if type(got) is list and len(got) != 2 and all(type(m) is tuple for m in got):
            return ("你只返回了合并表：要 return merges, pair_counts，把交给你的 pair_counts "
                    "也交回来，检查器要看它最后的计数和它被写了几次。")
        return ""
    got_merges, record = got
    if type(got_merges) is not list or not same_value(got_merges, merges):
        return _merges_note(got_merges, merges)
    if (type(record) is not dict or record.keys() != {"counts", "writes"}
            or type(record["counts"]) is not dict or type(record["writes"]) is not int):
        return ("合并表对了，但返回值的第二项要是交给你的 pair_counts 本身（检查器靠它数你写了"
                f"几次），你返回的是 {type_name(record)}：{show(record)}")
    counts, writes = record["counts"], record["writes"]
    if not same_value(counts, kept.counts):
        if not writes:
            return ("合并表对了，但交给你的 pair_counts 一次也没有被写过，最后还是合并前的计数。"
                    "要在它上面原地更新：每次合并，把索引交出的词的旧相邻对减掉、新相邻对加上"
                    f"（练习 1 的做法），不要另建一个计数字典。\n期望：{show(kept.counts)}\n"
                    f"得到：{show(counts)}")
        return ("合并表对了，但 pair_counts 最后的计数不对：它应该等于合并后的词重新数一遍的"
                f"结果（计数为 0 的 pair 删不删都行）。{_counts_note(counts, kept.counts)}")
    if writes > kept.budget:
        return (f"合并表和最后的计数都对，但你对 pair_counts 写了 {writes:,} 次（赋值、+=、-=、"
                "del 各算一次）。增量更新只碰倒排索引交出的词：这些词合并前、合并后的相邻对，"
                f"{len(merges)} 次合并加起来只有 {kept.work:,} 个，每个改一次（减到 0 再删掉算"
                f"两次），再加上把所有词数一遍的 {kept.start:,} 次，最多也就 2 × {kept.work:,} + "
                f"{kept.start:,} = {kept.budget:,} 次。写得比这还多，说明你每次合并都把计数重数"
                "或重写了一遍：只改索引交出的那些词的相邻对。\n"
                f"期望：最多写 {kept.budget:,} 次\n得到：写了 {writes:,} 次")
    return ""


def _merges_note(got: Any, expected: list) -> str:
    """期望/得到 of the merges, and the first merge where they part ways."""
    text = f"合并表不对。\n期望：{show(expected)}\n得到：{show(got)}"
    if type(got) is not list:
        return text + f"\n返回值的第一项要是合并表（list），你返回的是 {type_name(got)}。"
    at = next((k for k, (a, b) in enumerate(zip(got, expected)) if not same_value(a, b)),
              min(len(got), len(expected)))
    if at < len(expected) and at < len(got):
        return text + (f"\n第 {at + 1} 次合并起不同：期望 {show(expected[at])}，"
                       f"得到 {show(got[at])}")
    return text + f"\n期望 {len(expected)} 次合并，得到 {len(got)} 次。"


def _counts_note(got: dict, expected: dict) -> str:
    """Which pairs are missing, extra or miscounted, with an example of each."""
    missing = [p for p in expected if p not in got]
    extra = [p for p in got if p not in expected]
    wrong = [p for p in expected if p in got and not same_value(got[p], expected[p])]
    notes = [f"少了 {len(missing)} 个 pair，比如 {show(missing[0])}：期望 "
             f"{show(expected[missing[0]])}" if missing else "",
             f"多了 {len(extra)} 个 pair，比如 {show(extra[0])}：得到 {show(got[extra[0]])}"
             if extra else "",
             f"{len(wrong)} 个 pair 的次数不对，比如 {show(wrong[0])}：期望 "
             f"{show(expected[wrong[0]])}，得到 {show(got[wrong[0]])}" if wrong else ""]
    return "".join(f"\n{note}" for note in notes if note)


def _train_cases(seed: int | None = None) -> list[Case]:
    """The tie texts and slices of real text; a hidden draw takes other slices and adds random
    texts full of ties."""
    stories, luxun, texts = data.load_text("tinystories"), data.load_text("luxun"), TIE_TEXTS
    story = lu = 0
    if seed is not None:
        rng = draw(seed, 6)
        story, lu = rng.randrange(len(stories) - 3000), rng.randrange(len(luxun) - 1000)
        texts = texts + [" ".join(rng.choice(["ab", "ba", "aab", "b", "我们", "你"])
                                  for _ in range(rng.randint(2, 10))) for _ in range(3)]
    stories = data.split_documents(stories[story:story + 3000])
    luxun = luxun[lu:lu + 1000]  # 1,000 characters: about 3 KB of UTF-8
    return ([_train_case([text], 12) for text in texts]
            + [_train_case(stories, 60), _train_case([luxun], 60)])


register(Exercise(
    key="06.update_pair_counts",
    points=2,
    title="练习 1：一次合并之后，增量更新 pair 计数",
    concept="只有含这个 pair 的词会变。对每个这样的词：先把它的所有相邻对从计数里减掉"
            "（每个减去词频），合并，再把新词的所有相邻对加回去。"
            "计数降到 0 的 pair 要从字典里删掉。",
    recipe="对每个下标 i：若 pair 在 zip(words[i], words[i][1:]) 里，"
           "则 for p in 旧词的相邻对: counts[p] -= freqs[i]（为 0 就 del）；"
           "new = merge(words[i], pair, new_id)；"
           "for p in 新词的相邻对: counts[p] = counts.get(p, 0) + freqs[i]。最后 return counts。",
    make_cases=_update_cases,
    library_twins=("tutorial_lib.bpe.trainer.count_pairs",
                   "tutorial_lib.bpe.trainer.PairIndex.merge"),
))

register(Exercise(
    key="06.pop_best",
    points=2,
    title="练习 2：从惰性堆里取出当前最多的 pair",
    concept="堆里的条目记的是 pair 入堆时的次数，之后次数只会变少。"
            "从堆顶一个个弹出：条目的次数和 pair_counts 里的当前次数一致，它才是答案；"
            "不一致时不能扔掉它，要带着当前次数重新入堆（当前次数为 0 才扔掉）。"
            "不要扫描所有计数：检查器也看你取完之后堆里剩下什么。",
    recipe="best = None；while heap: neg, a, b = heapq.heappop(heap)；"
           "now = pair_counts.get((a, b), 0)；若 now == -neg 就 best = (a, b) 并 break；"
           "若 now > 0 就 heapq.heappush(heap, (-now, a, b))。最后 return best, sorted(heap)。",
    make_cases=_pop_cases,
    library_twins=("tutorial_lib.bpe.trainer.pop_best",),
))

register(Exercise(
    key="06.train_incremental",
    points=3,
    title="练习 3：把计数、倒排索引、增量更新和惰性堆拼成训练器",
    concept="交给你的 pair_counts 已经数好了所有 pair：不要重数，在它上面原地更新，最后和合并表"
            "一起返回（检查器数它被写了几次）。建倒排索引 pair → 含它的词的下标，"
            "再用 heap_entries(pair_counts, keys) 建堆（keys 让平局取字节最大的 pair，"
            "和第 05 章、train_bpe 一样）。每次合并：pop_best 取出最好的 pair，"
            "只更新索引交出的词（旧相邻对减掉、合并、新相邻对加上，同时改索引），"
            "再把含新 token 的新 pair 压进堆。",
    recipe="keys = [descending_key(t) for t in vocab.values()]；每次合并后 "
           "vocab[new_id] = vocab[a] + vocab[b]、keys.append(descending_key(vocab[new_id]))、"
           "merges.append((vocab[a], vocab[b]))；对 sorted(where.pop(best)) 里的每个 i 做练习 1 "
           "的更新（直接改 pair_counts：pair_counts[p] -= freqs[i]，为 0 就 del；"
           "pair_counts[p] += freqs[i]）并维护 where；最后对含 new_id 的新 pair 做 for e in "
           "heap_entries({p: pair_counts[p] for p in new}, keys): heapq.heappush(heap, e)。"
           "pop_best 返回 None 时停下，return merges, pair_counts。",
    make_cases=_train_cases,
    library_twins=("tutorial_lib.bpe.trainer.train_bpe",
                   "tutorial_lib.bpe.trainer.train_bpe_naive",
                   "tutorial_lib.bpe.trainer.PairIndex.build",
                   "tutorial_lib.bpe.trainer.PairIndex.merge"),
    explain=_explain_trainer,
))
