"""Chapter 08: reference solutions, and the typical wrong answer each checker must reject."""


def pad_utilization(lengths: list[int], seq_len: int) -> float:
    return sum(lengths) / (len(lengths) * seq_len)


def greedy_rows(lengths: list[int], seq_len: int) -> list[list[int]]:
    rows, used = [], seq_len
    for i, n in enumerate(lengths):
        if used + n > seq_len:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += n
    return rows


def _decreasing(lengths: list[int]) -> list[int]:
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable: ties in input order


def ffd_rows(lengths: list[int], seq_len: int) -> list[list[int]]:
    rows, used = [], []
    for i in _decreasing(lengths):
        for r in range(len(rows)):
            if used[r] + lengths[i] <= seq_len:
                rows[r].append(i)
                used[r] += lengths[i]
                break
        else:
            rows.append([i])
            used.append(lengths[i])
    return rows


def bfd_rows(lengths: list[int], seq_len: int) -> list[list[int]]:
    rows, used = [], []
    for i in _decreasing(lengths):
        best = -1
        for r in range(len(rows)):
            if used[r] + lengths[i] <= seq_len and (best < 0 or used[r] > used[best]):
                best = r
        if best < 0:
            rows.append([])
            used.append(0)
        rows[best].append(i)
        used[best] += lengths[i]
    return rows


def bestfit_crop_rows(lengths: list[int], seq_len: int, buffer_size: int,
                      refill: int) -> tuple[list[list[int]], int]:
    pending, buffer, rows, dropped, pos = list(range(len(lengths))), [], [[]], 0, 0
    while pending or buffer:
        while len(buffer) < buffer_size and pending:  # nanochat: one tokenizer batch at a time
            buffer += pending[:refill]
            del pending[:refill]
        room, best = seq_len - pos, -1
        for k, d in enumerate(buffer):
            if lengths[d] <= room and (best < 0 or lengths[d] > lengths[buffer[best]]):
                best = k
        if best < 0:  # nothing fits: crop the shortest
            best = min(range(len(buffer)), key=lambda k: lengths[buffer[k]])
            dropped += lengths[buffer[best]] - room
        d = buffer.pop(best)
        rows[-1].append(d)
        pos += min(lengths[d], room)
        if pos == seq_len and (pending or buffer):
            rows.append([])
            pos = 0
    return (rows if rows[0] else []), dropped


def _pad_to_longest(lengths: list[int], seq_len: int) -> float:
    # Pads every row to the longest document, as a dynamic batch would, not to the fixed row length.
    return sum(lengths) / (len(lengths) * max(lengths))


def _full_row_starts_a_new_one(lengths: list[int], seq_len: int) -> list[list[int]]:
    # Uses >= where > is meant: a document that fills the row exactly is pushed to the next row.
    rows, used = [], seq_len
    for i, n in enumerate(lengths):
        if used + n >= seq_len:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += n
    return rows


def _forgot_to_sort(lengths: list[int], seq_len: int) -> list[list[int]]:
    # First fit in input order: the "decreasing" left out, so long documents come late and fit badly.
    rows, used = [], []
    for i, n in enumerate(lengths):
        for r in range(len(rows)):
            if used[r] + n <= seq_len:
                rows[r].append(i)
                used[r] += n
                break
        else:
            rows.append([i])
            used.append(n)
    return rows


def _first_row_that_fits(lengths: list[int], seq_len: int) -> list[list[int]]:
    # Best fit written as first fit: stops at the first row with room instead of the tightest one.
    return ffd_rows(lengths, seq_len)


def _one_document_at_a_time(lengths: list[int], seq_len: int, buffer_size: int,
                            refill: int) -> tuple[list[list[int]], int]:
    # Tops the buffer up one document at a time, as the library once did: not nanochat's loader.
    return bestfit_crop_rows(lengths, seq_len, buffer_size, 1)


WRONG_ANSWERS = {
    "pad_utilization": _pad_to_longest,
    "greedy_rows": _full_row_starts_a_new_one,
    "ffd_rows": _forgot_to_sort,
    "bfd_rows": _first_row_that_fits,
    "bestfit_crop_rows": _one_document_at_a_time,
}
