"""Chapter 07: reference solutions, and the typical wrong answer each checker must reject."""

import random

from tutorial_lib.packing.batch import IGNORE_INDEX


def attention_mask(lengths: list[int], width: int, padding_side: str) -> list[list[int]]:
    if padding_side == "left":
        return [[0] * (width - n) + [1] * n for n in lengths]
    return [[1] * n + [0] * (width - n) for n in lengths]


def pad(rows: list[list[int]], pad_id: int, padding_side: str, max_length: int | None,
        pad_to_multiple_of: int | None, truncation_side: str
        ) -> tuple[list[list[int]], list[list[int]], int]:
    cut = 0
    if max_length is not None:  # truncate first: the mask follows the rows as they are after it
        cut = sum(max(0, len(row) - max_length) for row in rows)
        if truncation_side == "right":
            rows = [row[:max_length] for row in rows]
        else:
            rows = [row[max(0, len(row) - max_length):] for row in rows]
    width = max_length if max_length is not None else max(map(len, rows), default=0)
    if pad_to_multiple_of is not None:  # may take the width past max_length
        width = -(-width // pad_to_multiple_of) * pad_to_multiple_of
    fill = [[pad_id] * (width - len(row)) for row in rows]
    ids = [row + f if padding_side == "right" else f + row for row, f in zip(rows, fill)]
    return ids, attention_mask([len(row) for row in rows], width, padding_side), cut


def labels(input_ids: list[list[int]], attention_mask: list[list[int]]) -> list[list[int]]:
    return [[i if m else IGNORE_INDEX for i, m in zip(ids, mask)]
            for ids, mask in zip(input_ids, attention_mask)]


def padding_share(lengths: list[int], batch_size: int) -> float:
    chunks = [lengths[i:i + batch_size] for i in range(0, len(lengths), batch_size)]
    cells = sum(len(chunk) * max(chunk) for chunk in chunks)
    return 1 - sum(lengths) / cells if cells else 0.0


def bucketed_batches(lengths: list[int], batch_size: int, bucket_width: int,
                     seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    buckets: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        buckets.setdefault(n // bucket_width, []).append(i)
    batches = []
    for key in sorted(buckets):  # shortest bucket first: the same random draws as the library
        rng.shuffle(buckets[key])
        batches += [buckets[key][j:j + batch_size] for j in range(0, len(buckets[key]), batch_size)]
    rng.shuffle(batches)  # the batches in random order, each still of one length range
    return batches


def _always_right(lengths: list[int], width: int, padding_side: str) -> list[list[int]]:
    # Forgets padding_side: the pads of a left-padded row are in front.
    return [[1] * n + [0] * (width - n) for n in lengths]


def pad_cuts_the_end(rows, pad_id, padding_side, max_length, pad_to_multiple_of, truncation_side):
    # Ignores truncation_side: always keeps the first max_length tokens.
    return pad(rows, pad_id, padding_side, max_length, pad_to_multiple_of, "right")


def pad_rounds_the_longest_row(rows, pad_id, padding_side, max_length, pad_to_multiple_of,
                               truncation_side):
    # Rounds the longest row up and only then applies max_length, so the width never passes it.
    ids, _, cut = pad(rows, pad_id, padding_side, max_length, None, truncation_side)
    width = len(ids[0]) if ids else 0
    if pad_to_multiple_of is not None and max_length is None:
        width = -(-width // pad_to_multiple_of) * pad_to_multiple_of
    return pad(rows, pad_id, padding_side, width if max_length is None else max_length, None,
               truncation_side)[:2] + (cut,)


def pad_counts_cut_rows(rows, pad_id, padding_side, max_length, pad_to_multiple_of,
                        truncation_side):
    # Counts the rows that were cut instead of the tokens cut off.
    ids, mask, _ = pad(rows, pad_id, padding_side, max_length, pad_to_multiple_of, truncation_side)
    return ids, mask, sum(max_length is not None and len(row) > max_length for row in rows)


def _pad_id_is_zero(input_ids: list[list[int]], attention_mask: list[list[int]]) -> list[list[int]]:
    # Finds padding by its id (0), so a real token 0 loses its label.
    return [[IGNORE_INDEX if i == 0 else i for i in ids] for ids in input_ids]


def labels_shifted(input_ids: list[list[int]], attention_mask: list[list[int]]) -> list[list[int]]:
    # Shifts by one as for a hand-written next-token loss; Hugging Face's labels are not shifted.
    plain = labels(input_ids, attention_mask)
    return [row[1:] + [IGNORE_INDEX] for row in plain]


def labels_pad_is_the_last_id(input_ids: list[list[int]],
                              attention_mask: list[list[int]]) -> list[list[int]]:
    # Takes each row's last id for the pad id: a row ending on a real end-of-text loses its target.
    return [[IGNORE_INDEX if i == ids[-1] else i for i in ids] for ids in input_ids]


def _per_real_token(lengths: list[int], batch_size: int) -> float:
    # Divides the padding by the real tokens instead of by all cells.
    chunks = [lengths[i:i + batch_size] for i in range(0, len(lengths), batch_size)]
    cells = sum(len(chunk) * max(chunk) for chunk in chunks)
    return (cells - sum(lengths)) / sum(lengths) if lengths else 0.0


def _batches_in_bucket_order(lengths: list[int], batch_size: int, bucket_width: int,
                             seed: int) -> list[list[int]]:
    # Forgets the final shuffle: the model would see every short batch before any long one.
    rng = random.Random(seed)
    buckets: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        buckets.setdefault(n // bucket_width, []).append(i)
    batches = []
    for key in sorted(buckets):
        rng.shuffle(buckets[key])
        batches += [buckets[key][j:j + batch_size] for j in range(0, len(buckets[key]), batch_size)]
    return batches


def buckets_shuffled_once(lengths: list[int], batch_size: int, bucket_width: int,
                          seed: int) -> list[list[int]]:
    # Shuffles all rows once, then cuts each bucket in that order: other draws, other batches.
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    buckets: dict[int, list[int]] = {}
    for i in order:
        buckets.setdefault(lengths[i] // bucket_width, []).append(i)
    batches = [b[j:j + batch_size] for key in sorted(buckets)
               for b in [buckets[key]] for j in range(0, len(b), batch_size)]
    rng.shuffle(batches)
    return batches


WRONG_ANSWERS = {
    "attention_mask": _always_right,
    "pad": pad_cuts_the_end,
    "labels": _pad_id_is_zero,
    "padding_share": _per_real_token,
    "bucketed_batches": _batches_in_bucket_order,
}
