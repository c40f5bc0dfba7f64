"""Points per exercise: the one table the release writes into every graded cell.

The chapter's central algorithm (the loop a learner builds from the smaller steps) is worth more
than a step or a measurement: 3 for the central one, 2 for a step with edge cases to get right, 1
for a one-line measurement. `tests/course/classroom/test_points.py` checks that every registered
exercise has points here and that nothing else does.
"""

from __future__ import annotations

POINTS: dict[str, int] = {
    "00.utf8_length": 1,
    "01.clean_line": 1,
    "01.build_vocab": 2,
    "01.oov_rate": 1,
    "02.count_pairs": 2,
    "02.merge_pair": 2,
    "02.train": 3,
    "02.encode_word": 2,
    "03.chars_for_coverage": 2,
    "03.bytes_per_token": 1,
    "03.count_cut_characters": 2,
    "04.vocab_size": 1,
    "04.first_merges": 2,
    "04.embedding_bytes": 2,
    "04.utilization": 1,
    "05.train": 3,
    "05.encode": 2,
    "05.decode": 1,
    "05.encode_with_ranks": 2,
    "06.update_pair_counts": 2,
    "06.pop_best": 2,
    "06.train_incremental": 3,
    "07.attention_mask": 1,
    "07.pad": 3,
    "07.labels": 1,
    "07.padding_share": 1,
    "07.bucketed_batches": 2,
    "08.pad_utilization": 1,
    "08.greedy_rows": 2,
    "08.bestfit_crop_rows": 3,
    "08.ffd_rows": 2,
    "08.bfd_rows": 2,
    "09.document_mask": 2,
    "09.position_ids": 1,
    "09.cu_seqlens": 2,
    "09.same_as_alone": 2,
    "09.next_token_labels": 1,
    "10.parse_header": 1,
    "10.sequence_offset": 1,
    "10.samples_with_document": 2,
    "10.idx_bytes": 2,
    "10.sample_index": 3,
    "11.viterbi": 3,
    "11.expected_counts": 3,
    "11.wordpiece_score": 2,
    "11.encode_word": 3,
    "12.premium_summary": 3,
    "12.token_script": 2,
    "12.bits_per_byte": 2,
    "13.invariant_failures": 2,
    "13.token_offsets": 3,
    "13.golden_vector": 2,
}


def grade_id(key: str) -> str:
    """nbgrader's id of an exercise's graded cell: letters, digits and _ only ("02.train" ->
    "test_02_train"), unique within a notebook."""
    return "test_" + key.replace(".", "_")


def solution_id(key: str) -> str:
    return "answer_" + key.replace(".", "_")


def key_of(cell_id: str) -> str | None:
    """The exercise a graded cell id belongs to, or None for a cell that is not ours."""
    return next((key for key in POINTS if grade_id(key) == cell_id), None)
