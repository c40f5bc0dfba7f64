"""The one worker pool: a function mapped over tasks in new processes, safe for Ctrl-C and scripts.

Both users, the trainer's pre-token counting (`tokenization.corpus`) and the dataset pipeline, cut
their input into batches with `batches` and, for `workers > 1`, hand them to `map_in_workers`. The
pool:

- starts workers with "spawn", not fork: forking a process that already runs threads (a notebook
  kernel, Hugging Face tokenizers) can deadlock the child, and spawn behaves the same on Linux,
  macOS and Windows;
- sends a tiny first task, so that a script without the `if __name__ == "__main__":` guard fails
  fast with an error that says what to add (a spawned worker imports the main script again, and one
  that starts workers at its top level is stopped by multiprocessing, which kills the worker);
- keeps at most 2 x `workers` + 1 tasks in flight, so memory stays bounded and no worker waits for
  the slowest of a wave; results come back in task order, so the output does not depend on timing;
- starts workers with Ctrl-C (SIGINT) held back and ignored: only the main process sees it, cancels
  what is queued and cleans up, while a worker interrupted too would print its own traceback and
  could die inside the pool's queue protocol, which can leave the pool waiting forever.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def batches(items: Iterable[T], limit: int, size: Callable[[T], int] = len) -> Iterator[list[T]]:
    """Consecutive items in lists whose sizes add up to at least `limit` (the last may be smaller).

    The work unit of both users of the pool: big enough that sending it to a worker costs little
    next to the work, small enough that a few per worker fit in memory.
    """
    batch, total = [], 0
    for item in items:
        batch.append(item)
        total += size(item)
        if total >= limit:
            yield batch
            batch, total = [], 0
    if batch:
        yield batch


def map_in_workers(fn: Callable[[T], R], tasks: Iterable[T], workers: int, *, job: str, caller: str,
                   initializer: Callable[..., object] | None = None, initargs: tuple = ()
                   ) -> Iterator[R]:
    """`fn(task)` for each task, computed in `workers` new processes and yielded in task order.

    `fn`, the tasks and `initializer(*initargs)` (run once in each worker) must pickle. `job` and
    `caller` name, in the error for a worker that died, what was running ("pre-tokenization") and
    the function a script calls ("train_bpe"). Closing the generator early cancels the tasks nobody
    will read.
    """
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                             initargs=(initializer, initargs)) as pool:
        in_flight: deque[Future] = deque()
        try:
            # First a task of a few bytes: a worker that cannot start (no main guard) breaks the
            # pool here. With a megabyte task already queued, Python 3.10's pool would wait forever
            # to send it.
            _submit(pool, abs, 0).result()
            for task in tasks:
                in_flight.append(_submit(pool, fn, task))
                if len(in_flight) > 2 * workers:
                    yield in_flight.popleft().result()  # the oldest task: results stay in order
            while in_flight:
                yield in_flight.popleft().result()
        except BrokenProcessPool:
            raise RuntimeError(
                f"a worker process of {job} died (workers > 1). Each worker is a new Python that "
                f"first imports your main script; if the script calls {caller} at its top level, "
                'put that call under `if __name__ == "__main__":` (see the worker\'s error above), '
                "or pass workers=1. A worker can also die from lack of memory.") from None
        finally:
            for future in in_flight:  # after an error or Ctrl-C: no waiting for unread tasks
                future.cancel()


def _start_worker(initializer: Callable[..., object] | None, initargs: tuple) -> None:
    """Runs first in each worker: Ctrl-C is for the main process only, then the caller's set-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def _submit(pool: ProcessPoolExecutor, fn: Callable, *args: object) -> Future:
    """`pool.submit(fn, *args)` with Ctrl-C (SIGINT) held back meanwhile, where the system can.

    A submit may start a worker, and a worker inherits the signals held back at its start, for life;
    this covers the moment before `_start_worker` ignores SIGINT (Windows has no such mask). So
    Ctrl-C, which a terminal sends to every process of the job, reaches only this one: it cancels
    the queued tasks and waits for the running ones.
    """
    if not hasattr(signal, "pthread_sigmask"):
        return pool.submit(fn, *args)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C that came meanwhile lands now
