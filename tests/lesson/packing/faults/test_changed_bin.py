"""The lesson's reader and a `.bin` that another process writes while it opens: the mapping was taken of the
file as it was, the size check asked the path afterwards, so a half-written file that grew in between opened
without a word and served short sequences. Opening now compares the mapped size with the file's size. (A file cut
short after opening is the production reader's to survive: tests/pipeline/faults/test_truncated_bin.py.)"""

import pytest

from tutorial_lib.packing import megatron
from tutorial_lib.packing.megatron import bin_path


def test_a_bin_that_changes_size_while_it_is_opened_is_refused(tmp_path, monkeypatch):
    prefix = tmp_path / "d"
    megatron.write_dataset(prefix, [[1, 2, 3], [4, 5]])
    whole = bin_path(prefix).read_bytes()
    bin_path(prefix).write_bytes(whole[:4])  # a writer midway: 2 of its 5 tokens written
    mapping = megatron._map

    def map_then_finish(path, dtype):
        mapped = mapping(path, dtype)
        if path == bin_path(prefix):
            path.write_bytes(whole)  # ... and it finishes between the mapping and the size check
        return mapped

    monkeypatch.setattr(megatron, "_map", map_then_finish)
    with pytest.raises(ValueError, match=r"d\.bin changed size while it was opened \(4 bytes mapped, 10 now\): "
                                         "another process is writing it; open it once it is written"):
        megatron.IndexedDataset(prefix)
    monkeypatch.undo()
    assert [s.tolist() for s in megatron.IndexedDataset(prefix)] == [[1, 2, 3], [4, 5]]
