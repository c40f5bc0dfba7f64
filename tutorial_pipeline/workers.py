"""The one worker pool: a function mapped over tasks in new processes, safe for Ctrl-C and scripts.

Both users, parallel BPE training's pre-token counting (`train.count_pretokens`) and the dataset
pipeline (`local`), cut their input into batches with `batches` and, for `workers > 1`, hand them to
`map_in_workers`. The pool:

- starts workers with "spawn", not fork: forking a process that already runs threads (a notebook
  kernel, Hugging Face tokenizers) can deadlock the child, and spawn behaves the same on Linux,
  macOS and Windows;
- sends a tiny first task, so that a script without the `if __name__ == "__main__":` guard fails
  fast with an error that says what to add (a spawned worker imports the main script again, and one
  that starts workers at its top level is stopped by multiprocessing, which kills the worker);
- keeps at most 2 x `workers` + 1 tasks in flight, so memory stays bounded and no worker waits for
  the slowest of a wave; results come back in task order, so the output does not depend on timing;
- starts workers with Ctrl-C (SIGINT) held back and ignored, and a terminal's hang-up (SIGHUP)
  ignored: only the main process sees them, cancels what is queued and cleans up, while a worker
  interrupted too would print its own traceback and could die inside the pool's queue protocol,
  which can leave the pool waiting forever;
- ends each worker when the main process dies, even by SIGKILL, where nothing in the main process
  runs any more: Linux sends the worker SIGTERM at once (`PR_SET_PDEATHSIG`), and on Linux and
  macOS a thread in the worker sees its parent change (`os.getppid`) within POLL_SECONDS (Windows
  never changes a process's parent id, so there a worker cannot watch it). Without this a
  worker waits for tasks forever (every worker holds the task queue's pipe open, so it never sees
  end-of-file), and so does multiprocessing's resource tracker, which waits for the workers;
- hands the set-up (`initializer`, `initargs`: the pipeline's tokenizer, a megabyte or more of
  pickle) to each worker through a file in a directory of its own, named after the main process.
  Sent as an argument of the worker's start instead, the pickle would block the main process
  forever if the worker died before reading it (the main process holds the pipe's reading end
  until the write ends). The directory is removed when the pool ends, by an orphaned worker before
  it exits, and otherwise by the next pool, which removes every such directory of a process that
  is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 256  # more processes than that is a typo, not a machine (each holds its own copy)
POLL_SECONDS = 0.5  # how often a worker checks that its parent is still there
_DIRECTORY_PREFIX = "tutorial_lib-pool-"  # then the main process's pid, "-", random characters


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
    _remove_stale_directories()
    directory = Path(tempfile.mkdtemp(prefix=f"{_DIRECTORY_PREFIX}{os.getpid()}-"))
    try:
        setup = directory / "setup.pickle"
        setup.write_bytes(pickle.dumps((initializer, initargs)))
        yield from _map(fn, tasks, workers, job, caller, (os.getpid(), str(setup)))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _map(fn: Callable[[T], R], tasks: Iterable[T], workers: int, job: str, caller: str,
         worker_args: tuple[int, str]) -> Iterator[R]:
    """`map_in_workers` once the set-up file is written: the pool itself."""
    context = multiprocessing.get_context("spawn")
    _start_resource_tracker()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                             initargs=worker_args) as pool:
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


def _start_worker(parent: int, setup: str) -> None:
    """Runs first in each worker: Ctrl-C is for the main process only, the worker ends with its
    parent, then the caller's set-up from the file `setup`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    _end_with_parent(parent, Path(setup).parent)
    initializer, initargs = pickle.loads(Path(setup).read_bytes())
    if initializer is not None:
        initializer(*initargs)


def _end_with_parent(parent: int, directory: Path) -> None:
    """Make this worker exit, removing the pool's `directory`, once the process `parent` is gone."""
    def orphaned(*_: object) -> None:
        if os.getppid() != parent:  # a SIGTERM from anyone else just ends the worker
            shutil.rmtree(directory, ignore_errors=True)
        os._exit(128 + signal.SIGTERM)

    if sys.platform == "linux":
        signal.signal(signal.SIGTERM, orphaned)
        _set_parent_death_signal(signal.SIGTERM)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        orphaned()

    if os.name == "posix":  # Windows never changes a process's parent id, so it cannot be watched
        threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _set_parent_death_signal(signum: int) -> None:
    """Ask Linux to send `signum` to this process when its parent dies (prctl PR_SET_PDEATHSIG)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signum), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no prctl here (another C library): the watcher suffices
        pass


def _remove_stale_directories() -> None:
    """Remove the set-up directories of pools whose main process is gone (killed before its
    workers started, so that no worker could remove it)."""
    if os.name != "posix":  # os.kill(pid, 0) would terminate a process on Windows
        return
    for directory in Path(tempfile.gettempdir()).glob(f"{_DIRECTORY_PREFIX}*-*"):
        pid = directory.name[len(_DIRECTORY_PREFIX):].split("-")[0]
        if pid.isdigit() and not alive(int(pid)):
            shutil.rmtree(directory, ignore_errors=True)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that removes the pool's semaphores
    after a crash) with a hang-up ignored, as it ignores Ctrl-C itself: a terminal that closes sends
    SIGHUP to every process of the job, and a tracker killed by it is started again by the next use,
    which then fails with a traceback about a semaphore the new one never saw."""
    from multiprocessing import resource_tracker

    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        resource_tracker.ensure_running()  # only the main thread may change a signal's handler
        return
    ignored = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a new process inherits SIG_IGN
    try:
        resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, ignored)


def _submit(pool: ProcessPoolExecutor, fn: Callable, *args: object) -> Future:
    """`pool.submit(fn, *args)` with Ctrl-C (SIGINT) and SIGHUP held back meanwhile, where the
    system can.

    A submit may start a worker, and a worker inherits the signals held back at its start, for life;
    this covers the moment before `_start_worker` ignores SIGINT (Windows has no such mask). So
    Ctrl-C, which a terminal sends to every process of the job, reaches only this one: it cancels
    the queued tasks and waits for the running ones.
    """
    if not hasattr(signal, "pthread_sigmask"):
        return pool.submit(fn, *args)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGHUP})
    try:
        return pool.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C that came meanwhile lands now
