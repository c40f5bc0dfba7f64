"""The benchmarks' one stopwatch: the best of a few runs, so a busy moment on the machine does not
count against either side of a ratio."""

import time


def best_of(repeats, fn):
    """(fastest wall-clock seconds of `repeats` calls of fn(), what the last call returned)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result
