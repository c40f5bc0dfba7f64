"""Chapter 09: reference solutions, and the typical wrong answer each checker must reject."""

import numpy as np

from tutorial_lib.packing.batch import IGNORE_INDEX
from tutorial_lib.packing.masks import PAD_DOC


def document_mask(doc_ids: list[int]) -> list[list[bool]]:
    return [[doc_ids[i] == doc_ids[j] != PAD_DOC and j <= i for j in range(len(doc_ids))]
            for i in range(len(doc_ids))]


def position_ids(doc_ids: list[int]) -> list[int]:
    out, start = [], 0
    for i, doc in enumerate(doc_ids):
        if i == 0 or doc != doc_ids[i - 1]:
            start = i  # a new document begins here
        out.append(0 if doc == PAD_DOC else i - start)
    return out


def same_as_alone(head, tokens: list[int], doc_ids: list[int], mask: np.ndarray,
                  position_ids: list[int]) -> list[bool]:
    return _documents_match(head, tokens, doc_ids, mask, position_ids, alone_positions=None)


def _documents_match(head, tokens, doc_ids, mask, position_ids, alone_positions) -> list[bool]:
    """same_as_alone; a document alone runs at positions 0, 1, ... or, if given, at
    alone_positions[start:end]."""
    packed = head(tokens, position_ids, mask)
    result, start = [], 0
    for end in range(1, len(doc_ids) + 1):
        if end < len(doc_ids) and doc_ids[end] == doc_ids[start]:
            continue
        if doc_ids[start] != PAD_DOC:  # the document doc_ids[start] runs from start to end
            n = end - start
            where = list(range(n)) if alone_positions is None else alone_positions[start:end]
            alone = head(tokens[start:end], where, np.tril(np.ones((n, n), dtype=bool)))
            result.append(bool(np.abs(packed[start:end] - alone).max() <= 1e-6))
        start = end
    return result


def cu_seqlens(doc_ids: list[list[int]]) -> list[int]:
    offsets = [0]
    for row in doc_ids:
        previous = None
        for doc in row:
            if doc != PAD_DOC:
                if doc == previous:
                    offsets[-1] += 1
                else:
                    offsets.append(offsets[-1] + 1)
            previous = doc
    return offsets


def next_token_labels(tokens: list[int], doc_ids: list[int]) -> list[int]:
    return [tokens[i + 1] if doc_ids[i] == doc_ids[i + 1] != PAD_DOC else IGNORE_INDEX
            for i in range(len(tokens) - 1)]


def _same_document_only(doc_ids: list[int]) -> list[list[bool]]:
    # Forgets causality: a token may look at the rest of its own document, including the future.
    return [[a == b != PAD_DOC for b in doc_ids] for a in doc_ids]


def _padding_counted(doc_ids: list[int]) -> list[int]:
    # Restarts at every document, but counts the padding on like one more document: 0, 1, 2, ...
    out = []
    for i, doc in enumerate(doc_ids):
        out.append(0 if i == 0 or doc != doc_ids[i - 1] else out[-1] + 1)
    return out


def _alone_at_row_positions(head, tokens, doc_ids, mask, position_ids) -> list[bool]:
    # Runs each document "alone" at the positions it had in the row: the comparison then cannot
    # see that the position ids were never restarted.
    return _documents_match(head, tokens, doc_ids, mask, position_ids, position_ids)


def _one_stream(doc_ids: list[list[int]]) -> list[int]:
    # Reads the flattened batch as one stream: a document split across rows becomes one sequence.
    flat = [doc for row in doc_ids for doc in row]
    return cu_seqlens([flat])


def _shifted_only(tokens: list[int], doc_ids: list[int]) -> list[int]:
    # Masks padding but lets the last token of a document predict the first token of the next one.
    return [tokens[i + 1] if doc_ids[i + 1] != PAD_DOC else IGNORE_INDEX
            for i in range(len(tokens) - 1)]


WRONG_ANSWERS = {
    "document_mask": _same_document_only,
    "position_ids": _padding_counted,
    "same_as_alone": _alone_at_row_positions,
    "cu_seqlens": _one_stream,
    "next_token_labels": _shifted_only,
}
