"""Chapter 06 exercises: the two ideas that make the trainer fast, each held to the library's.

The incremental update is compared with a full recount of the merged corpus (`trainer.count_pairs`),
the lazy heap with the library's own `trainer.pop_best`. A learner who recounts or scans passes too:
the checkers test the result, the notebook measures the speed. The heap is the library's without
the byte keys (`trainer.heap_entries` without `keys`): entries (-count, a, b), ties to the
smallest (a, b), so that a case can be worked through by hand.
"""

from __future__ import annotations

import heapq
import random

from tutorial_lib.exercises import Case, Exercise, register
from tutorial_lib.tokenization.trainer import count_pairs, heap_entries, merge, pop_best

NEW_ID = 9  # the id of the merged token in every case: larger than any id in the words


def _pair_counts(words: list[list[int]], freqs: list[int]) -> dict[tuple[int, int], int]:
    return dict(count_pairs(words, freqs))


def _update_case(words: list[list[int]], freqs: list[int], pair: tuple[int, int]) -> Case:
    merged = [merge(ids, pair, NEW_ID) for ids in words]
    return Case((words, freqs, _pair_counts(words, freqs), pair, NEW_ID),
                _pair_counts(merged, freqs))


def _update_cases() -> list[Case]:
    rng = random.Random(6)
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
    return Case((heap, pair_counts), pop_best(list(heap), pair_counts))


def _random_heap_case(rng: random.Random) -> Case:
    """Each entry holds a count its pair had earlier (never 0): the current one or more."""
    pairs = rng.sample([(a, b) for a in range(4) for b in range(4)], rng.randint(1, 8))
    pair_counts = {pair: rng.choice([0, 1, 2, 3, 4, 5, 6]) for pair in pairs}
    pushed = {pair: max(1, count + rng.choice([0, 0, 1, 3])) for pair, count in pair_counts.items()}
    return _heap_case(pushed, pair_counts)


def _pop_cases() -> list[Case]:
    rng = random.Random(6)
    cases = [_heap_case({}, {}), _heap_case({(0, 1): 5}, {(0, 1): 5}),
             _heap_case({(0, 1): 3}, {(0, 1): 0}),
             _heap_case({(0, 1): 5, (1, 2): 4}, {(0, 1): 3, (1, 2): 4}),  # the top entry is stale
             _heap_case({(0, 1): 6, (1, 2): 4}, {(0, 1): 5, (1, 2): 4}),  # stale, still the best
             _heap_case({(1, 2): 4, (0, 3): 5}, {(1, 2): 4, (0, 3): 4})]  # a tie: the smaller pair
    return cases + [_random_heap_case(rng) for _ in range(40)]


register(Exercise(
    key="06.update_pair_counts",
    title="练习 1：一次合并之后，增量更新 pair 计数",
    concept="只有含这个 pair 的词会变。对每个这样的词：先把它的所有相邻对从计数里减掉"
            "（每个减去词频），合并，再把新词的所有相邻对加回去。"
            "计数降到 0 的 pair 要从字典里删掉。",
    recipe="对每个下标 i：若 pair 在 zip(words[i], words[i][1:]) 里，"
           "则 for p in 旧词的相邻对: counts[p] -= freqs[i]（为 0 就 del）；"
           "new = merge(words[i], pair, new_id)；"
           "for p in 新词的相邻对: counts[p] = counts.get(p, 0) + freqs[i]。最后 return counts。",
    make_cases=_update_cases,
))

register(Exercise(
    key="06.pop_best",
    title="练习 2：从惰性堆里取出当前最多的 pair",
    concept="堆里的条目记的是 pair 入堆时的次数，之后次数只会变少。"
            "堆顶条目的次数和 pair_counts 里的当前次数一致，它才是答案；"
            "不一致时不能扔掉它，要带着当前次数重新入堆（当前次数为 0 才扔掉）。",
    recipe="while heap: neg, a, b = heapq.heappop(heap)；now = pair_counts.get((a, b), 0)；"
           "若 now == -neg 就 return (a, b)；若 now > 0 就 heapq.heappush(heap, (-now, a, b))。"
           "循环结束 return None。",
    make_cases=_pop_cases,
))
