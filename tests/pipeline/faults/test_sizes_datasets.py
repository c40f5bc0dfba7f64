"""Root cause 6 (samples): the memory of Megatron's indices was sized by num_samples before any plausibility
check, so GPTSamples(ds, 4, num_samples=10**15) ended in a bare MemoryError."""

import pytest

from tutorial_lib import _memory
from tutorial_lib.packing.gpt_samples import GPTSamples
from tutorial_lib.packing.megatron import write_dataset


@pytest.fixture
def ds(tmp_path):
    return write_dataset(tmp_path / "ds", [[1, 2, 3], [4, 5, 6, 7], [8, 9]])


def test_more_samples_than_memory_are_refused_with_the_size_needed(ds):
    with pytest.raises(ValueError, match=r"num_samples takes 444,444,444,444,445 epochs, "
                                         r"1,000,000,000,000,001 samples in all, whose indices would need "
                                         r"about \([\d.]+ [kMGTPE]?B\), more than this machine's memory"):
        GPTSamples(ds, 4, num_samples=10**15)


def test_the_bound_is_this_machines_memory(ds, monkeypatch):
    monkeypatch.setattr(_memory, "MEMORY_BYTES", 40_960)  # a machine of 40 KiB
    GPTSamples(ds, 4, num_samples=100)  # 48 * 100 + 20 * 3 * 45 bytes: fits
    with pytest.raises(ValueError, match=r"would need about \(74.7 kB\), more than this machine's "
                                         r"memory \(41 kB\); ask for fewer samples"):
        GPTSamples(ds, 4, num_samples=1000)
