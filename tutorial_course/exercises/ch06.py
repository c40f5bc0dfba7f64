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
heap with byte keys. A learner who recounts every pair per merge passes too (the checker tests the
merges); the notebook then times both on the learner's machine.
"""

from __future__ import annotations

import heapq
import random

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe.merge import merge
from tutorial_lib.bpe.trainer import count_pairs, heap_entries, pop_best, start_training, train_bpe

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


def _train_case(texts: list[str], num_merges: int) -> Case:
    """train_incremental's arguments as `start_training` gives them; train_bpe's merges expected."""
    vocab, words, freqs, merges_left = start_training(texts, 256 + num_merges)
    return Case((words, freqs, vocab, merges_left), train_bpe(texts, 256 + num_merges)[1])


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
    concept="开始时数一遍所有 pair（count_pairs），建倒排索引 pair → 含它的词的下标，"
            "再用 heap_entries(pair_counts, keys) 建堆（keys 让平局取字节最大的 pair，"
            "和第 05 章、train_bpe 一样）。每次合并：pop_best 取出最好的 pair，"
            "只更新索引交出的词（旧相邻对减掉、合并、新相邻对加上，同时改索引），"
            "再把含新 token 的新 pair 压进堆。",
    recipe="keys = [descending_key(t) for t in vocab.values()]；每次合并后 "
           "vocab[new_id] = vocab[a] + vocab[b]、keys.append(descending_key(vocab[new_id]))、"
           "merges.append((vocab[a], vocab[b]))；对 sorted(where.pop(best)) 里的每个 i 做练习 1 "
           "的更新并维护 where；最后对含 new_id 的新 pair 做 for e in "
           "heap_entries({p: pair_counts[p] for p in new}, keys): heapq.heappush(heap, e)。"
           "pop_best 返回 None 时停下。",
    make_cases=_train_cases,
    library_twins=("tutorial_lib.bpe.trainer.train_bpe",
                   "tutorial_lib.bpe.trainer.train_bpe_naive",
                   "tutorial_lib.bpe.trainer.PairIndex.build",
                   "tutorial_lib.bpe.trainer.PairIndex.merge"),
))
