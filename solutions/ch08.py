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


WRONG_ANSWERS = {
    "pad_utilization": _pad_to_longest,
    "greedy_rows": _full_row_starts_a_new_one,
}
