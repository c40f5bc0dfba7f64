"""Root cause 8 (datasets): a FIFO as .idx or .bin (or as the pair record or the manifest beside them) blocked the
reader forever; anything that is not a regular file (or a symlink to one) is refused before it is opened."""

import os
import threading

import pytest

from tutorial_pipeline import dataset_files as pair
from tutorial_pipeline.dataset_manifest import manifest_path
from tutorial_lib.packing.megatron import bin_path, idx_path, read_header
from tutorial_pipeline.dataset import CheckedDataset, write_dataset

DEADLINE = 60  # seconds: only bounds a failure (a reader blocked on the FIFO)


def _fifo(path):
    path.unlink()
    os.mkfifo(path)


def _directory(path):
    path.unlink()
    path.mkdir()


def _loop(path):
    path.unlink()
    path.symlink_to(path)


def _link_to_file(path):
    real = path.with_name("real-" + path.name)
    path.rename(real)
    path.symlink_to(real)


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

CASES = [
    ("a FIFO as .idx", idx_path, _fifo, "a FIFO"),
    ("a FIFO as .bin", bin_path, _fifo, "a FIFO"),
    ("a directory as .idx", idx_path, _directory, "a directory"),
    ("a symlink loop as .bin", bin_path, _loop, "cannot be looked up"),
    ("a FIFO as the pair record", pair.record_path, _fifo, "a FIFO"),
    ("a FIFO as the manifest", manifest_path, _fifo, "a FIFO"),
    ("a directory as the manifest", manifest_path, _directory, "a directory"),
]


def _call_unblocking(fn, fifo):
    """fn() in a thread; if it blocks on `fifo`, open the other end so that the test fails instead of hanging."""
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(_outcome(fn)), daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(DEADLINE)
        pytest.fail(f"blocked on {fifo}")
    return outcome[0]


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - examined by the test
        return e


@needs_fifo
@pytest.mark.parametrize("name, which, make, kind", CASES, ids=[c[0] for c in CASES])
def test_a_special_file_in_the_pair_is_refused_before_it_is_opened(tmp_path, name, which, make, kind):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3]])
    make(which(prefix))
    error = _call_unblocking(lambda: CheckedDataset(prefix), which(prefix))
    assert isinstance(error, ValueError), error
    assert f"prefix must be a" in str(error) and kind in str(error) and str(which(prefix)) in str(error)


@needs_fifo
def test_read_header_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "d.idx"
    os.mkfifo(fifo)
    error = _call_unblocking(lambda: read_header(fifo), fifo)
    assert isinstance(error, ValueError) and "path must be a regular file" in str(error) and "FIFO" in str(error)


def test_a_symlink_to_a_regular_file_is_fine(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3]])
    for path in (bin_path, idx_path, manifest_path, pair.record_path):
        _link_to_file(path(prefix))
    assert CheckedDataset(prefix, verify=True)[0].tolist() == [1, 2, 3]
