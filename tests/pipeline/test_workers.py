"""The one worker pool (`tutorial_pipeline.workers`): batches, results in order, bounded work in
flight, and a generator closed early cancels the rest. Its users test the rest with their own scripts:
no main guard and Ctrl-C in tests/lesson/bpe/test_corpus.py (parallel training,
`tutorial_pipeline.train`) and tests/pipeline/test_local.py."""

import pytest

from tutorial_pipeline.workers import batches, map_in_workers


def test_batches_add_up_to_the_limit_and_keep_the_order():
    assert list(batches(["ab", "c", "def", "g", "h"], 3)) == [["ab", "c"], ["def"], ["g", "h"]]
    assert list(batches([], 3)) == []
    words = [("x", 2), ("y", 1), ("z", 5)]
    assert list(batches(words, 3, size=lambda w: w[1])) == [[("x", 2), ("y", 1)], [("z", 5)]]


class Tasks:
    """Numbers -1, -2, ... handed out one at a time, counting how many were taken."""

    def __init__(self, n):
        self.n, self.taken = n, 0

    def __iter__(self):
        while self.taken < self.n:
            self.taken += 1
            yield -self.taken


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_in_task_order_with_at_most_two_per_worker_ahead(workers):
    tasks = Tasks(30)
    results = map_in_workers(abs, tasks, workers, job="a test", caller="abs")
    assert next(results) == 1
    assert tasks.taken == 2 * workers + 1  # the first result waits until the pool is that full
    assert list(results) == list(range(2, 31))


def test_closing_the_results_early_takes_no_more_tasks():
    tasks = Tasks(1000)
    results = map_in_workers(abs, tasks, 2, job="a test", caller="abs")
    assert [next(results), next(results)] == [1, 2]
    results.close()  # cancels what is queued, waits for what runs
    assert tasks.taken == 6
