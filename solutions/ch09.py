"""Chapter 09: reference solutions, and the typical wrong answer each checker must reject."""

from tutorial_lib.packing.batch import IGNORE_INDEX
from tutorial_lib.packing.masks import PAD


def document_mask(doc_ids: list[int]) -> list[list[bool]]:
    return [[doc_ids[i] == doc_ids[j] != PAD and j <= i for j in range(len(doc_ids))]
            for i in range(len(doc_ids))]


def cu_seqlens(doc_ids: list[list[int]]) -> list[int]:
    offsets = [0]
    for row in doc_ids:
        previous = None
        for doc in row:
            if doc != PAD:
                if doc == previous:
                    offsets[-1] += 1
                else:
                    offsets.append(offsets[-1] + 1)
            previous = doc
    return offsets


def next_token_labels(tokens: list[int], doc_ids: list[int]) -> list[int]:
    return [tokens[i + 1] if doc_ids[i] == doc_ids[i + 1] != PAD else IGNORE_INDEX
            for i in range(len(tokens) - 1)]


def _same_document_only(doc_ids: list[int]) -> list[list[bool]]:
    # Forgets causality: a token may look at the rest of its own document, including the future.
    return [[a == b != PAD for b in doc_ids] for a in doc_ids]


def _one_stream(doc_ids: list[list[int]]) -> list[int]:
    # Reads the flattened batch as one stream: a document split across rows becomes one sequence.
    flat = [doc for row in doc_ids for doc in row]
    return cu_seqlens([flat])


def _shifted_only(tokens: list[int], doc_ids: list[int]) -> list[int]:
    # Masks padding but lets the last token of a document predict the first token of the next one.
    return [tokens[i + 1] if doc_ids[i + 1] != PAD else IGNORE_INDEX
            for i in range(len(tokens) - 1)]


WRONG_ANSWERS = {
    "document_mask": _same_document_only,
    "cu_seqlens": _one_stream,
    "next_token_labels": _shifted_only,
}
