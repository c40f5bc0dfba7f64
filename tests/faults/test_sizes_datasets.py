"""Root cause 6 (samples): the memory of Megatron's indices was sized by num_samples before any plausibility
check, so GPTSamples(ds, 4, num_samples=10**15) ended in a bare MemoryError."""

import os

import pytest

from tutorial_lib.packing import gpt_samples
from tutorial_lib.packing.gpt_samples import GPTSamples
from tutorial_lib.packing.megatron import write_dataset


@pytest.fixture
def ds(tmp_path):
    return write_dataset(tmp_path / "ds", [[1, 2, 3], [4, 5, 6, 7], [8, 9]])


def test_more_samples_than_memory_are_refused_with_the_size_needed(ds):
    with pytest.raises(ValueError, match=r"num_samples takes 444,444,444,444,445 epochs, "
                                         r"1,000,000,000,000,001 samples in all, whose indices need about "
                                         r"[\d,.]+ GiB, more than this machine's [\d,.]+ GiB of memory"):
        GPTSamples(ds, 4, num_samples=10**15)


def test_the_bound_is_this_machines_memory(ds, monkeypatch):
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 10}  # a machine of 40 KiB
    monkeypatch.setattr(gpt_samples.os, "sysconf", pages.__getitem__)
    GPTSamples(ds, 4, num_samples=100)  # 48 * 100 + 20 * 3 * 45 bytes: fits
    with pytest.raises(ValueError, match=r"indices need about 0.0 GiB, more than this machine's 0.0 GiB"):
        GPTSamples(ds, 4, num_samples=1000)


def test_without_sysconf_nothing_is_refused_early(ds, monkeypatch):
    monkeypatch.delattr(os, "sysconf")  # Windows
    assert len(GPTSamples(ds, 4, num_samples=100)) >= 100
