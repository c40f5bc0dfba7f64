"""Chapter 08 exercises: utilization of padding, greedy packing, first-fit and best-fit decreasing
by a plain scan, and nanochat's best-fit-crop loader; the cases come from
`packing.strategies`."""

from __future__ import annotations

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.packing import strategies


def _length_lists(public: int, seed: int | None) -> list[tuple[list[int], int]]:
    """(lengths, seq_len) with every length <= seq_len, from hand-picked edge cases to random
    ones (drawn by `draw(seed, public)`)."""
    rng = draw(seed, public)
    cases = [([3, 1, 4], 4), ([4, 4], 4), ([1], 8), ([2, 2, 2, 2], 4), ([3, 2, 3, 1], 5),
             ([5, 1, 5], 6)]
    for _ in range(20):
        seq_len = rng.choice([8, 16, 64, 512])
        cases.append(([rng.randint(1, seq_len) for _ in range(rng.randint(1, 30))], seq_len))
    return cases


def _utilization_cases(seed: int | None = None) -> list[Case]:
    return [Case((lengths, seq_len), strategies.pad(lengths, seq_len).utilization)
            for lengths, seq_len in _length_lists(8, seed)]


def _greedy_cases(seed: int | None = None) -> list[Case]:
    cases = []
    for lengths, seq_len in _length_lists(9, seed):
        result = strategies.greedy(lengths, seq_len)
        rows = [[segment.doc for segment in result.segments(r)] for r in range(result.n_rows)]
        cases.append(Case((lengths, seq_len), rows))
    return cases


register(Exercise(
    key="08.pad_utilization",
    points=1,
    title="练习 1：一篇文档一行，利用率是多少",
    concept="利用率 = 真实 token 数 / 行里的全部格子数；每行都是 seq_len 个格子，不管文档多长，"
            "不是补到最长的那篇。",
    recipe="行数就是文档数 len(lengths)；返回 sum(lengths) / (len(lengths) * seq_len)。",
    make_cases=_utilization_cases,
    library_twins=("tutorial_lib.packing.strategies.pad",),
))

register(Exercise(
    key="08.greedy_rows",
    points=2,
    title="练习 2：按顺序贪心装行",
    concept="按输入顺序一篇篇放；放得下（当前行已用 + 这篇长度 <= seq_len，恰好装满也算放得下）"
            "就放进当前行，"
            "放不下就另起一行。不排序，也不回头找前面的行。",
    recipe="rows = []；used = seq_len（让第一篇一定开新行）；"
           "对每个下标 i：若 used + lengths[i] > seq_len，"
           "就 rows.append([]) 并令 used = 0；"
           "然后 rows[-1].append(i)，used += lengths[i]。返回 rows。",
    make_cases=_greedy_cases,
    library_twins=("tutorial_lib.packing.strategies.greedy",),
))


# --- the learner's bin packers, held to the library row for row ---------------------------------


def _real_lengths(seed: int | None) -> list[tuple[list[int], int]]:
    """Lengths of real documents: TinyStories stories in words, Lu Xun paragraphs in characters
    (other slices for hidden cases). The row lengths are at least the longest document, so no
    document needs splitting."""
    stories = [len(story.split()) for story in data.tinystories_documents()]
    paragraphs = [len(p) for p in data.load_text("luxun").split("\n\n") if p.strip()]
    story = para = 0
    if seed is not None:
        rng = draw(seed, 12)
        story, para = rng.randrange(len(stories) - 800), rng.randrange(len(paragraphs) - 1500)
    return [(stories[story:story + 800], 800), (stories, 1024),
            (paragraphs[para:para + 1500], 600)]


def _bin_cases(strategy, seed: int | None = None) -> list[Case]:
    """Small cases that tell first fit from best fit (and each from its mistakes), random ones, and
    real documents; rows are the documents of each row in the order they were placed."""
    hand = [([15, 15, 15, 16, 45, 49, 80], 124),  # ffd needs 2 rows, bfd 3
            ([75, 75, 70, 70, 69, 68, 63, 61, 55, 53, 50, 41, 35, 35, 34, 34, 29, 28, 28, 28, 17,
              16, 16, 15, 13, 12, 12, 9, 4], 78),  # bfd needs 15 rows, ffd 16
            ([6, 6, 5, 4, 3, 4], 10),  # the tightest row, and the oldest of equally tight ones
            ([2, 5, 2, 5, 3], 7), ([1, 1, 1], 1)]
    cases = []
    for lengths, seq_len in hand + _length_lists(10, seed) + _real_lengths(seed):
        result = strategy(lengths, seq_len)
        rows = [[segment.doc for segment in result.segments(r)] for r in range(result.n_rows)]
        cases.append(Case((lengths, seq_len), rows))
    return cases


def _crop_cases(seed: int | None = None) -> list[Case]:
    """(lengths, seq_len, buffer_size, refill) -> (rows, dropped), nanochat's loader as
    `strategies.bestfit_crop` runs it; the small cases tell a batch refill from a one-at-a-time
    one."""
    args = [([1, 2, 9], 10, 2, 128), ([1, 2, 9], 10, 2, 1), ([3, 4, 2], 5, 1, 1),
            ([9, 9, 1, 1, 9], 10, 2, 3), ([5, 1, 5, 2, 7, 1], 6, 3, 2)]
    rng = draw(seed, 11)
    for _ in range(15):
        seq_len = rng.choice([8, 16, 64])
        lengths = [rng.randint(1, 2 * seq_len) for _ in range(rng.randint(1, 40))]
        args.append((lengths, seq_len, rng.randint(1, 12), rng.randint(1, 6)))
    (stories, _), _, (paragraphs, _) = _real_lengths(seed)
    args += [(stories[:600], 512, 1000, 128), (paragraphs, 256, 100, 16), (stories, 256, 100, 1)]
    cases = []
    for lengths, seq_len, buffer_size, refill in args:
        result = strategies.bestfit_crop(lengths, seq_len, buffer_size=buffer_size, refill=refill)
        rows = [[segment.doc for segment in result.segments(r)] for r in range(result.n_rows)]
        cases.append(Case((lengths, seq_len, buffer_size, refill), (rows, result.dropped)))
    return cases


register(Exercise(
    key="08.ffd_rows",
    points=2,
    title="练习 4：首次适配递减（first-fit decreasing），一行行扫",
    concept="先把文档按长度从长到短排好（一样长的保持原来的先后），再一篇篇放：从第 0 行往后扫，"
            "放进第一个还放得下的行；哪一行都放不下才开新行。",
    recipe="order = sorted(range(len(lengths)), key=lambda i: -lengths[i])（稳定排序）；"
           "rows, used = [], []；对 order 里的每个 i："
           "找最小的 r 使 used[r] + lengths[i] <= seq_len，"
           "找到就 rows[r].append(i)、used[r] += lengths[i]，找不到就 rows.append([i])、"
           "used.append(lengths[i])。返回 rows。",
    make_cases=lambda seed=None: _bin_cases(strategies.ffd, seed),
    library_twins=("tutorial_lib.packing.strategies.ffd",),
))

register(Exercise(
    key="08.bfd_rows",
    points=2,
    title="练习 5：最佳适配递减（best-fit decreasing）",
    concept="排序和练习 4 一样；不同的是选行：在所有放得下的行里，挑放进去之后剩余空间最小的那一行"
            "（已用最多的）；一样紧的几行取最早开的那一行。",
    recipe="对每个 i（按长度从长到短）：best = -1；扫一遍 r：若 used[r] + n <= seq_len 且 "
           "(best < 0 或 used[r] > used[best])，令 best = r（用 >，并列时留下最早的）；"
           "best < 0 就开新行，否则放进 rows[best]。",
    make_cases=lambda seed=None: _bin_cases(strategies.bfd, seed),
    library_twins=("tutorial_lib.packing.strategies.bfd",),
))

register(Exercise(
    key="08.bestfit_crop_rows",
    points=3,
    title="练习 3：nanochat 的 best-fit-crop 加载器",
    concept="缓冲区按到达顺序存文档；每挑一篇之前，缓冲区里少于 buffer_size 篇就补货，"
            "一次补 refill 篇（最后一批可能不足），直到不少于 buffer_size 篇。"
            "挑放得下的最长一篇（一样长取先到的）；都放不下就把最短的一篇（一样短取先到的）剪到正好填满，"
            "剩下的丢掉，记进 dropped。行满了就开新行；文档用完时最后一行可以不满。",
    recipe="pending = list(range(len(lengths)))；buffer, rows, dropped = [], [[]], 0；pos = 0；"
           "while pending 或 buffer：while len(buffer) < buffer_size 且 pending：把 pending 的前 "
           "refill 个移到 buffer 末尾；room = seq_len - pos；"
           "在 buffer 里找 lengths <= room 的最长者（用 > 比较，留下靠前的）；"
           "没有就取最短者（min 会留下靠前的），dropped += 长度 - room；"
           "从 buffer 里 pop 它，rows[-1].append(它)，pos += min(长度, room)；"
           "pos == seq_len 且还有文档时"
           "rows.append([])、pos = 0。返回 (rows, dropped)。",
    make_cases=_crop_cases,
    library_twins=("tutorial_lib.packing.strategies.bestfit_crop",),
))
