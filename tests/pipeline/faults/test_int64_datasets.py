"""Root cause 3 (datasets): ids at and beyond the int64/uint64 bounds reached numpy unchecked in add_item, failing
with an OverflowError or a misleading float dtype, or wrapping."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutorial_lib.packing.megatron import DTYPES
from tutorial_pipeline.dataset import AtomicDatasetBuilder, write_dataset  # a refusal leaves nothing

I64 = 2**63

CASES = [
    # ids, dataset dtype, error, message
    ([I64], np.int64, ValueError, f"fit int64 .*got {I64}"),
    ([2**64], np.int64, ValueError, rf"ids\[0\] must be an int in \[-2\*\*63, 2\*\*63 - 1\], got {2**64}"),
    ([I64, -1], np.int64, ValueError, rf"ids\[0\] must be an int in \[-2\*\*63, 2\*\*63 - 1\], got {I64}"),
    ([-(2**63) - 1], np.int64, ValueError, r"ids\[0\] must be an int in \[-2\*\*63"),
    ([2**100], np.uint16, ValueError, r"ids\[0\] must be an int in \[0, 65535\]"),
    (np.array([I64], np.uint64), np.int64, ValueError, f"fit int64 .*got {I64}"),
    (np.array([2**64 - 1], np.uint64), np.int32, ValueError, f"fit int32 .*got {2**64 - 1}"),
    (np.array([65536], np.uint64), np.uint16, ValueError, "fit uint16 .*got 65536"),
    (np.array([-1], np.int64), np.uint8, ValueError, "fit uint8 .*got -1"),
    ([1, 2.0], np.int32, TypeError, r"ids\[1\] must be an int .*got float 2.0"),
    ([True], np.int32, TypeError, r"ids\[0\] must be an int"),
]


@pytest.mark.parametrize("ids, dtype, error, message", CASES, ids=[f"{c[0]!r}-{np.dtype(c[1])}" for c in CASES])
def test_ids_beyond_the_dtype_are_refused_not_wrapped(tmp_path, ids, dtype, error, message):
    with pytest.raises(error, match=message):
        with AtomicDatasetBuilder(tmp_path / "d", dtype) as builder:
            builder.add_document(ids)
    assert list(tmp_path.iterdir()) == []


INTEGER_DTYPES = [d for d in DTYPES.values() if d.kind in "iu"]
ARRAY_DTYPES = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                      np.uint64)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(INTEGER_DTYPES), st.sampled_from(ARRAY_DTYPES + [None]), st.data())
def test_every_id_of_every_dtype_is_stored_exactly_or_refused(tmp_path_factory, dataset_dtype, array_dtype, data):
    """Python ints (None) or arrays of any integer dtype, near and beyond the int64/uint64 bounds: the
    dataset holds exactly the values given, or a ValueError says which does not fit."""
    if array_dtype is None:
        values = st.one_of(st.integers(-(2**65), 2**65), st.sampled_from([I64 - 1, I64, 2**64 - 1, 2**64, -I64,
                                                                           -I64 - 1]))
    else:
        info = np.iinfo(array_dtype)
        values = st.integers(int(info.min), int(info.max))
    ids = data.draw(st.lists(values, min_size=1, max_size=5))
    given_ids = ids if array_dtype is None else np.array(ids, dtype=array_dtype)
    info = np.iinfo(dataset_dtype)
    prefix = tmp_path_factory.mktemp("ids") / "d"
    if all(info.min <= i <= info.max for i in ids):
        assert write_dataset(prefix, [given_ids], dataset_dtype)[0].tolist() == ids
    else:
        with pytest.raises(ValueError, match="must fit|must be an int in"):
            write_dataset(prefix, [given_ids], dataset_dtype)
        assert list(prefix.parent.iterdir()) == []
