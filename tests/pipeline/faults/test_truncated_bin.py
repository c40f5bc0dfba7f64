"""A `.bin` cut short under an open reader: the mapping's lost pages killed the reading process with SIGBUS (a
notebook's kernel, a DataLoader worker) before Python could raise anything. `CheckedDataset` compares the size of
the file it mapped with its size at opening before it hands out a sequence: a file truncated or rewritten in place
since is a ValueError. (The views it returns still read the mapping: a cut between the check and the read is
beyond any check, and docs/pipeline.md and chapter 10 say so.) Each reader runs in a child process: a regression
kills the child, not pytest."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tutorial_lib.packing.megatron import bin_path
from tutorial_pipeline.dataset import CheckedDataset, write_dataset

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows cannot truncate a mapped file")

CHILD = textwrap.dedent("""
    import os, sys
    import numpy as np
    from tutorial_lib.packing.megatron import bin_path
    from tutorial_pipeline.dataset import CheckedDataset

    prefix, how = sys.argv[1], sys.argv[2]
    ds = CheckedDataset(prefix)
    path = bin_path(prefix)
    if how == "truncate":
        os.truncate(path, 100)
    elif how == "rewrite":  # what ndarray.tofile and megatron-core's builder do: truncate, then write less
        np.arange(300, dtype=np.uint16).tofile(path)
    read = ds.document if "document" in sys.argv[3:] else ds.get
    try:
        tokens = read(len(ds) - 1)
    except ValueError as e:
        print("ValueError:", e)
    else:
        print("read", int(tokens.sum()))
""")


@pytest.fixture
def prefix(tmp_path):
    """20 sequences of 1,000 uint16 tokens: 40,000 bytes, ten pages."""
    write_dataset(tmp_path / "d", [np.full(1000, i, np.uint16) for i in range(20)])
    return tmp_path / "d"


def read_in_child(prefix, *how):
    return subprocess.run([sys.executable, "-c", CHILD, str(prefix), *how], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("how", ["truncate", "rewrite"])
@pytest.mark.parametrize("read", ["get", "document"])
def test_a_bin_cut_short_under_an_open_reader_is_a_valueerror_not_a_sigbus(prefix, how, read):
    run = read_in_child(prefix, how, read)
    assert run.returncode != -signal.SIGBUS, "the reader died of SIGBUS"
    assert run.returncode == 0, run.stderr
    size = 100 if how == "truncate" else 600
    assert run.stdout.startswith(f"ValueError: {bin_path(prefix)} has {size} bytes now, but 40000 when this "
                                 "reader opened it: another process truncated it or is rewriting it in place")
    assert "AtomicDatasetBuilder" in run.stdout and "open the dataset again" in run.stdout


def test_the_reader_still_reads_the_whole_file_and_a_renamed_replacement_keeps_its_old_one(prefix):
    assert read_in_child(prefix, "none").stdout == f"read {19 * 1000}\n"
    old = CheckedDataset(prefix)
    write_dataset(prefix, [[1, 2, 3]])  # renamed over the pair: the old reader keeps its files
    assert old.get(19).tolist() == [19] * 1000 and old.document(19).tolist() == [19] * 1000
    assert old.get(5, 10, 3).tolist() == [5, 5, 5] and old.get(-1, offset=999).tolist() == [19]
    assert np.shares_memory(old[3], old.tokens) and np.shares_memory(old.document(3), old.tokens)  # views still
    assert [s.tolist() for s in CheckedDataset(prefix)] == [[1, 2, 3]]
