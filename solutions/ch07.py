"""Chapter 07: reference solutions, and the typical wrong answer each checker must reject."""

from tutorial_lib.packing.batch import IGNORE_INDEX


def attention_mask(lengths: list[int], width: int, padding_side: str) -> list[list[int]]:
    if padding_side == "left":
        return [[0] * (width - n) + [1] * n for n in lengths]
    return [[1] * n + [0] * (width - n) for n in lengths]


def labels(input_ids: list[list[int]], attention_mask: list[list[int]]) -> list[list[int]]:
    return [[i if m else IGNORE_INDEX for i, m in zip(ids, mask)]
            for ids, mask in zip(input_ids, attention_mask)]


def padding_share(lengths: list[int], batch_size: int) -> float:
    chunks = [lengths[i:i + batch_size] for i in range(0, len(lengths), batch_size)]
    cells = sum(len(chunk) * max(chunk) for chunk in chunks)
    return 1 - sum(lengths) / cells if cells else 0.0


def _always_right(lengths: list[int], width: int, padding_side: str) -> list[list[int]]:
    # Forgets padding_side: the pads of a left-padded row are in front.
    return [[1] * n + [0] * (width - n) for n in lengths]


def _pad_id_is_zero(input_ids: list[list[int]], attention_mask: list[list[int]]) -> list[list[int]]:
    # Finds padding by its id (0), so a real token 0 loses its label.
    return [[IGNORE_INDEX if i == 0 else i for i in ids] for ids in input_ids]


def _per_real_token(lengths: list[int], batch_size: int) -> float:
    # Divides the padding by the real tokens instead of by all cells.
    chunks = [lengths[i:i + batch_size] for i in range(0, len(lengths), batch_size)]
    cells = sum(len(chunk) * max(chunk) for chunk in chunks)
    return (cells - sum(lengths)) / sum(lengths) if lengths else 0.0


WRONG_ANSWERS = {
    "attention_mask": _always_right,
    "labels": _pad_id_is_zero,
    "padding_share": _per_real_token,
}
