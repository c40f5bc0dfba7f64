"""Chapter 07 exercises: the attention mask from lengths, padding with `pad_to_multiple_of` and
truncation, labels with IGNORE_INDEX (-100), the padding share of a batching, and a length-bucketed
batcher. The cases come from `packing.masks` and `packing.batch`, several on token rows of real
TinyStories text (a small byte-level BPE trained here, quick to build for a check; the notebook
itself loads the packing chapters' `course_tokenizer`)."""

from __future__ import annotations

from functools import lru_cache

from tutorial_course.exercises import Case, Exercise, draw, register
from tutorial_lib import data
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.packing import batch, masks

SPECIALS = ["<|endoftext|>", "<|pad|>"]


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    """A 512-token byte-level BPE trained on the first 60 stories (trained once per session)."""
    return train_tokenizer(data.tinystories_documents()[:60], 512, special_tokens=SPECIALS)


@lru_cache(maxsize=1)
def _story_rows() -> tuple[tuple[int, ...], ...]:
    """Every TinyStories story as ids, end-of-text appended: real rows with a real length
    distribution."""
    tok = _tokenizer()
    eot = tok.special_tokens[SPECIALS[0]]
    return tuple(tuple(tok.encode(s) + [eot]) for s in data.tinystories_documents())


@lru_cache(maxsize=None)
def _sentence_rows(seed: int | None = None) -> tuple[tuple[int, ...], ...]:
    """The first sentence of each of 40 stories the tokenizer was not trained on: short real
    rows (for hidden cases, 40 others)."""
    stories = data.tinystories_documents()[60:]
    start = 0 if seed is None else draw(seed, 7).randrange(len(stories) - 40)
    stories = stories[start:start + 40]
    return tuple(tuple(_tokenizer().encode(s.split(".")[0] + ".")) for s in stories)


def _mask_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 7)
    cases = [([3, 1, 5], 5, "right"), ([3, 1, 5], 5, "left"), ([2], 4, "left"),
             ([0, 2], 3, "right"), ([], 0, "left")]
    for _ in range(12):
        lengths = [rng.randint(0, 8) for _ in range(rng.randint(1, 5))]
        cases.append((lengths, max(lengths) + rng.randint(0, 3), rng.choice(masks.SIDES)))
    return [Case(args, masks.attention_mask_from_lengths(*args).tolist()) for args in cases]


def _pad_expected(rows, pad_id, padding_side, max_length, pad_to_multiple_of, truncation_side):
    """What `batch.pad` gives, with truncation on exactly when a max_length is given."""
    b = batch.pad(rows, pad_id, padding_side=padding_side, max_length=max_length,
                  pad_to_multiple_of=pad_to_multiple_of, truncation=max_length is not None,
                  truncation_side=truncation_side)
    return (b.input_ids, b.attention_mask, b.num_truncated_tokens)


def _pad_cases(seed: int | None = None) -> list[Case]:
    toy = [[2, 3, 4], [4], [2, 3, 5, 6, 4]]
    cases = [(toy, 0, "right", None, None, "right"), (toy, 0, "left", None, None, "right"),
             (toy, 0, "right", None, 4, "right"), (toy, 0, "left", 3, None, "right"),
             (toy, 0, "right", 3, None, "left"), (toy, 0, "left", 3, 4, "left"),
             ([[7, 8]], 9, "right", 5, 4, "right"), ([[], [1]], 0, "left", None, 2, "right")]
    sentences, rng = [list(r) for r in _sentence_rows(seed)], draw(seed, 7)
    pad_id = _tokenizer().special_tokens[SPECIALS[1]]
    for k in range(16):  # real rows, every combination of sides, often cut, often rounded past
        rows = rng.sample(sentences, rng.randint(2, 5))
        longest = max(map(len, rows))
        max_length = None if k % 5 == 0 else rng.randint(max(1, longest - 8), longest + 2)
        multiple = rng.choice([None, 8, 16])
        sides = masks.SIDES[k % 2], masks.SIDES[k // 2 % 2]  # padding, truncation
        cases.append((rows, pad_id, sides[0], max_length, multiple, sides[1]))
    return [Case(args, _pad_expected(*args)) for args in cases]


def _labels_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 7)
    rows = [[[2, 3, 4], [4]], [[5, 0, 6], [0]], [[0]], [[7, 8], [9, 10]]]
    for _ in range(12):
        rows.append([[rng.randint(0, 9) for _ in range(rng.randint(0, 6))]
                     for _ in range(rng.randint(1, 4))])
    cases = []
    for k, ids in enumerate(rows):
        padded = batch.pad(ids, 0, padding_side=masks.SIDES[k % 2])
        cases.append(Case((padded.input_ids, padded.attention_mask), batch.labels(padded).tolist()))
    sentences = [list(r) for r in _sentence_rows(seed)]
    eot = _tokenizer().special_tokens[SPECIALS[0]]
    for k in range(4):  # real rows padded GPT-2 style with end-of-text, which also ends each row
        padded = batch.pad([r + [eot] for r in sentences[3 * k:3 * k + 3]], eot,
                           padding_side=masks.SIDES[k % 2])
        cases.append(Case((padded.input_ids, padded.attention_mask), batch.labels(padded).tolist()))
    return cases


def _share_cases(seed: int | None = None) -> list[Case]:
    rng = draw(seed, 7)
    cases = [([3, 1, 5], 3), ([3, 1, 5], 1), ([1, 4, 2, 3], 2), ([2, 2, 2], 2),
             ([5, 1, 1, 1, 1], 2), ([], 4)]
    for _ in range(12):
        cases.append(([rng.randint(1, 40) for _ in range(rng.randint(1, 20))], rng.randint(1, 6)))
    return [Case(args, batch.ordered_batches(*args).padding_share) for args in cases]


def _bucket_cases(seed: int | None = None) -> list[Case]:
    lengths = [len(r) for r in _story_rows()]
    cases = [([3, 1, 5], 2, 2, 0), ([4, 8, 7, 9, 3, 4], 2, 4, 0), ([5, 5, 5, 5, 5], 2, 1, 3),
             ([1, 2, 3, 4, 5, 6, 7, 8], 3, 100, 1), ([], 4, 8, 0), ([0, 0, 6], 1, 3, 2)]
    rng = draw(seed, 7)
    for k in range(6):
        cases.append(([rng.randint(1, 40) for _ in range(rng.randint(1, 30))],
                      rng.randint(1, 6), rng.choice([1, 4, 16]), k))
    if seed is None:
        cases += [(lengths[:200], 16, 32, 0), (lengths, 32, 32, 0), (lengths, 16, 8, 5)]
    else:  # other stories, other shuffles
        start = rng.randrange(len(lengths) - 200)
        cases += [(lengths[start:start + 200], 16, 32, rng.randrange(1000)),
                  (lengths, 32, 32, rng.randrange(1000)), (lengths, 16, 8, rng.randrange(1000))]
    return [Case(args, batch.bucketed_batches(*args).batches) for args in cases]


register(Exercise(
    key="07.attention_mask",
    points=1,
    title="练习 1：由长度构造注意力掩码",
    concept="掩码只看每行有几个真实 token，不看 id：1 表示真实 token，0 表示填充；"
            "padding_side='left' 时填充在行首，1 都挤在右端。",
    recipe="对每个长度 n：右填充是 [1]*n + [0]*(width-n)，左填充是 [0]*(width-n) + [1]*n；"
           "把这些行放进一个列表返回。",
    make_cases=_mask_cases,
    library_twins=("tutorial_lib.packing.masks.attention_mask_from_lengths",),
))

register(Exercise(
    key="07.pad",
    points=3,
    title="练习 2：左右填充、pad_to_multiple_of 和截断",
    concept="先截断，再定宽度，最后补齐：给了 max_length 就把更长的行从 truncation_side 那一头"
            "切到 max_length（记下一共切掉几个 token）；宽度是 max_length（没给就是最长一行），"
            "再向上取整到 pad_to_multiple_of 的倍数，所以宽度可以超过 max_length；"
            "填充补在 padding_side 那一头，掩码按切完之后的长度写。",
    recipe="cut = sum(max(0, len(r) - max_length))；右截断 r[:max_length]，左截断 "
           "r[len(r) - max_length:]（短行不动）；width = max_length 或 max(长度, 默认 0)；"
           "width = -(-width // m) * m；右填充 r + [pad_id] * (width - len(r))，左填充反过来；"
           "返回 (input_ids, attention_mask, cut)。",
    make_cases=_pad_cases,
    library_twins=("tutorial_lib.packing.batch.pad",),
))

register(Exercise(
    key="07.labels",
    points=1,
    title="练习 3：labels 里的 -100",
    concept="labels 与 input_ids 对齐（不移位，Hugging Face 的模型在内部移位）；"
            "只有掩码为 0 的位置换成 -100。"
            "判断填充要看 attention_mask，不要看 id：填充用的 id 也可能是真实 token"
            "（用例里有按 GPT-2 的做法拿结束符填充、每行又以结束符结尾的真实行）。",
    recipe="逐行逐位置：attention_mask 为 1 时取 input_ids 的值，为 0 时写 -100；不要错开一位。",
    make_cases=_labels_cases,
    library_twins=("tutorial_lib.packing.batch.labels",),
))

register(Exercise(
    key="07.padding_share",
    points=1,
    title="练习 4：一种分批方式浪费了多少",
    concept="每一批都要补齐到本批最长的一行，所以这一批占的格子数是 行数 × 最长行；"
            "填充比例 = 填充格子数 / 全部格子数（不是除以真实 token 数）。",
    recipe="按顺序每 batch_size 行切一批（最后一批可以更短）；cells 累加 len(批) * max(批)；"
           "返回 1 - sum(lengths) / cells；没有格子时返回 0.0。",
    make_cases=_share_cases,
    library_twins=("tutorial_lib.packing.batch.ordered_batches",),
))

register(Exercise(
    key="07.bucketed_batches",
    points=2,
    title="练习 5：按长度分桶的分批器",
    concept="长度 n 落进第 n // bucket_width 个桶；每个桶内打乱后每 batch_size 个切一批"
            "（桶的最后一批可以更短，批不跨桶）；最后把所有批的顺序打乱，训练时批的次序仍是随机的。"
            "要和 batch.bucketed_batches 逐批一致，随机数的用法也得一样："
            "一个 random.Random(seed)，按桶号从小到大 shuffle 每个桶，最后 shuffle 批的列表。",
    recipe="rng = random.Random(seed)；buckets = {}，for i, n in enumerate(lengths): "
           "buckets.setdefault(n // bucket_width, []).append(i)；for key in sorted(buckets): "
           "rng.shuffle(buckets[key])，把 buckets[key][j:j + batch_size] 依次加进 batches；"
           "最后 rng.shuffle(batches)，返回 batches。",
    make_cases=_bucket_cases,
    library_twins=("tutorial_lib.packing.batch.bucketed_batches",),
))
