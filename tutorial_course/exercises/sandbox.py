"""Run the learner's code in a forked copy of the kernel, so nothing it does reaches the kernel.

`check` hands `run_each` one piece of work per case: a function of the case's number that never
raises and returns a JSON-able list (`exercises.call_case`: what the learner's function returned,
encoded by `exercises.wire`, or what it raised). The child does nothing else: the answer is
decoded and judged in the parent, so nothing the learner's code does to the child (patching the
comparison, returning an object with a lying `==`) reaches the verdict. On Unix the work runs in
a child made by `os.fork`, which inherits the learner's function and the cases as they are
(nothing is pickled), and which

- leads its own process group: the parent's SIGKILL of that group also ends any process the
  learner's code forked, and the learner's own `os.killpg(0, ...)` reaches only the group;
- may map at most `memory_allowance()` bytes more than it inherited (RLIMIT_AS, on Linux), so a huge
  allocation is a MemoryError in the child instead of a swapping machine or an OOM-killed kernel;
- answers over a pipe, one JSON line per message (never a pickle: the kernel must not run what the
  child sends); the learner's `print` output comes back the same way and the parent writes it to
  its own sys.stdout / sys.stderr, because in a notebook those are ZMQ streams that a forked process
  cannot write to. Output written straight to a file descriptor (os.write, C code) is not relayed.

The parent waits on the pipe with a deadline per case and answers by it whatever the child does
(exits, loops in C, masks or resets signals and timers, segfaults, forks): the work's value, or an
`Ended` saying how the child ended. One child runs all the cases of a check (a fork per case would
cost each case the copy of a large kernel's page tables); after a child ends early, a new one takes
the remaining cases, so every case still gets an answer. The function runs in a copy of the
kernel: what it changes in global variables is not seen afterwards; but it also sees all the
kernel holds, a check's cases with their expected values included (grading runs it in
`exercises.runner`, a process that holds none). A process it starts in a session of its own
(os.setsid) leaves the group and is not killed.

On macOS a function that calls into the system's Objective-C libraries may crash the forked
child; that is reported like any crash. Where `os.fork` does not exist (Windows) the work runs in
a daemon thread of the kernel itself, abandoned at the deadline: Python cannot kill a thread, so a
stuck one runs on until the kernel restarts, and an exit, a crash or a huge allocation there
reaches the kernel. Its answer still goes through the same JSON, so a lying `==` fails there
too; but a function that patches the checker in the kernel does patch it there.
"""

from __future__ import annotations

import builtins
import faulthandler
import json
import os
import selectors
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, NoReturn

from tutorial_lib import _memory

CAN_FORK = hasattr(os, "fork")
MAX_ALLOWANCE = 4 * 2**30  # bytes: far more than any exercise needs, little enough to spare
OUTPUT_LIMIT = 100_000  # characters of the learner's printed output shown per check
# bytes of one message line: a write of OUTPUT_LIMIT characters, each escaped to 12 bytes at most
LINE_LIMIT = 12 * OUTPUT_LIMIT + 1024
_READ_LIMIT = 1 << 20  # bytes read from the pipe at one go, more than a dead child can leave
_POLL = 0.1  # seconds between looks at whether a quiet child is still alive
_BROKEN = 70  # the child's exit code when it can no longer send (EX_SOFTWARE)


@dataclass(frozen=True)
class Ended:
    """Why a case got no answer: it ran past its deadline, or the process running it ended.

    With neither `exit_code` nor `signal_name`, the child broke the pipe to the parent.
    """

    timed_out: bool = False
    exit_code: int | None = None  # the child exited (os._exit) with this code
    signal_name: str | None = None  # the child was killed by this signal, e.g. "SIGSEGV"

    def explained(self) -> str:
        """What the learner sees for a case whose process ended without an answer."""
        if self.signal_name:
            cause = {"SIGKILL": "（常见原因：内存用得太多，被系统强制结束）",
                     "SIGSEGV": "（常见原因：递归太深把栈用完了，或者 C 扩展出了错）"}
            return (f"运行出错：运行你的函数的进程被信号 {self.signal_name} 终止了"
                    f"{cause.get(self.signal_name, '')}")
        if self.exit_code is not None:
            return (f"运行出错：运行你的函数的进程直接退出了（退出码 {self.exit_code}），"
                    "比如调用了 os._exit()：练习里的函数要用 return 交回结果。")
        return "运行出错：运行你的函数的进程断开了和检查程序的联系（比如关掉了它的文件描述符）。"


def memory_allowance() -> int:
    """Bytes a child may map beyond what it inherited: half the machine's memory, at most
    MAX_ALLOWANCE, so a runaway allocation fails at once instead of pushing the kernel into swap."""
    return min(MAX_ALLOWANCE, _memory.MEMORY_BYTES // 2)


def run_each(work: Callable[[int], tuple], count: int, seconds: float,
             prepare: Callable[[], Callable[[], None]] | None = None) -> list[Any]:
    """[work(0), ..., work(count - 1)], each given `seconds`; a case without an answer is an
    `Ended`, and the list stops after the first case that timed out.

    `prepare`, if given, runs in each child before its first case (the library twins are blocked
    there, never in the kernel); without fork it runs in the kernel and the function it returns
    undoes it after the last case.
    """
    if not CAN_FORK:
        undo = prepare() if prepare else None
        try:
            return _run_threaded(work, count, seconds)
        finally:
            if undo:
                undo()
    output = _Output()
    results: list[Any] = []
    # a child runs the cases from the first one without an answer until all have one or it ends
    while len(results) < count and not (results and getattr(results[-1], "timed_out", False)):
        child = _Child(work, range(len(results), count), prepare)
        try:
            results += child.collect(seconds, output)
        finally:
            child.close()
    return results


def _run_threaded(work: Callable[[int], tuple], count: int, seconds: float) -> list[Any]:
    """The fallback without fork: each case in a daemon thread, abandoned at its deadline."""
    results: list[Any] = []
    for number in range(count):
        box: list[tuple] = []
        worker = threading.Thread(target=lambda: box.append(work(number)), daemon=True)
        worker.start()
        worker.join(seconds)
        if worker.is_alive():
            return results + [Ended(timed_out=True)]
        # through JSON, as from a child: what the checker judges is the same plain data
        results.append(tuple(json.loads(json.dumps(box[0]))) if box else Ended())
    return results


# --- the parent's side ----------------------------------------------------------------------------


class _Output:
    """The learner's printed output, written to the kernel's streams, OUTPUT_LIMIT characters at
    most."""

    def __init__(self) -> None:
        self.left = OUTPUT_LIMIT

    def write(self, name: str, text: str) -> None:
        stream = sys.stdout if name == "out" else sys.stderr
        shown = text[: max(self.left, 0)]
        if shown:
            stream.write(shown)
        if len(shown) < len(text) and self.left >= 0:
            stream.write(f"\n……（输出超过 {OUTPUT_LIMIT} 个字符，后面的不再显示）\n")
        self.left -= len(text)


class _Broken(Exception):
    """The child sent something that is not a message of ours."""


class _Child:
    """One forked child running `work` on `numbers`, seen from the parent."""

    def __init__(self, work: Callable[[int], tuple], numbers: range,
                 prepare: Callable[[], object] | None = None) -> None:
        read_fd, write_fd = os.pipe()
        with warnings.catch_warnings():  # Python 3.12+ warns about fork in a threaded kernel
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child_main(work, numbers, write_fd, prepare)
        os.close(write_fd)
        try:  # also here, so the group exists before any kill, whoever runs first
            os.setpgid(pid, pid)
        except OSError:
            pass
        os.set_blocking(read_fd, False)
        self.pid, self.fd, self.status = pid, read_fd, None
        self.numbers, self.buffer, self.eof = numbers, b"", False
        self.selector = selectors.DefaultSelector()
        self.selector.register(read_fd, selectors.EVENT_READ)

    def collect(self, seconds: float, output: _Output) -> list[Any]:
        """The answers, in order, until every case has one or the child ends (then an `Ended`)."""
        results: list[Any] = []
        deadline = time.monotonic() + seconds
        while len(results) < len(self.numbers):
            left = deadline - time.monotonic()
            if left <= 0:
                return results + [Ended(timed_out=True)]
            try:
                messages = self._read(min(left, _POLL))
                # nothing came: is the child gone? (a grandchild may hold the pipe open)
                gone = not messages and self._exited()
                if gone:  # what it wrote just before it ended
                    messages = self._read(0)
            except _Broken:
                return results + [Ended()]
            for message in messages:
                if "start" in message:  # the child begins a case: it gets its own `seconds`
                    deadline = time.monotonic() + seconds
                for name in ("out", "err"):
                    if isinstance(message.get(name), str):
                        output.write(name, message[name])
                if "value" in message:
                    results.append(tuple(message["value"]))
            if gone and len(results) < len(self.numbers):
                return results + [self._ended()]
        return results

    def _read(self, timeout: float) -> list[dict]:
        """The complete messages that arrive within `timeout` seconds."""
        if self.eof:
            time.sleep(min(timeout, 0.01))
            return []
        if not self.selector.select(timeout):
            return []
        data = b""
        # what is there now, up to a bound, so a flood of output cannot hold off the deadline
        while len(data) < _READ_LIMIT:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            self.eof = not chunk
            if self.eof:
                break
            data += chunk
        *lines, self.buffer = (self.buffer + data).split(b"\n")
        if len(self.buffer) > LINE_LIMIT:
            raise _Broken
        try:
            messages = [json.loads(line) for line in lines]
        except (ValueError, RecursionError) as err:  # not JSON, or nested beyond reason
            raise _Broken from err
        if not all(isinstance(m, dict) and isinstance(m.get("value", []), list)
                   for m in messages):
            raise _Broken
        return messages

    def _exited(self) -> bool:
        """Whether the child has ended; if so its group is killed at once and its status kept."""
        if self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # someone else reaped it
                pid, status = self.pid, 0
            if pid == 0:
                return False
            self.status = status
            self._kill_group()
        return True

    def _ended(self) -> Ended:
        """How the child ended, from its exit status."""
        status = self.status or 0
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return Ended(signal_name=name)
        code = os.WEXITSTATUS(status)
        return Ended() if code == _BROKEN else Ended(exit_code=code)

    def _kill_group(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:  # no process is left in the group
            pass

    def close(self) -> None:
        """Kill whatever is left of the child and its group, reap it, close the pipe."""
        self._kill_group()
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)  # in case it never got its own group
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:  # someone else reaped it
                pass
        self.selector.close()
        os.close(self.fd)


# --- the child's side -----------------------------------------------------------------------------


class _Sender:
    """Writes one JSON line per message; a process the learner's code forked exits when it tries."""

    def __init__(self, fd: int) -> None:
        self.fd, self.pid, self.lock = fd, os.getpid(), threading.Lock()

    def __call__(self, message: dict) -> None:
        if os.getpid() != self.pid:  # only the child answers; a grandchild ends here
            os._exit(0)
        data = (json.dumps(message) + "\n").encode()
        with self.lock:  # the learner's threads may print at the same time
            while data:
                data = data[os.write(self.fd, data):]


class _Relay:
    """sys.stdout or sys.stderr in the child: each write goes to the parent as a message."""

    encoding = "utf-8"

    def __init__(self, send: _Sender, name: str) -> None:
        self.send, self.name = send, name

    def write(self, text: str) -> int:
        self.send({self.name: text[:OUTPUT_LIMIT]})
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _no_input(prompt: object = "") -> str:
    """input() in the child: nobody can type into a forked copy of the kernel."""
    raise EOFError("input() is not available while an exercise is checked")


def _limit_memory() -> None:
    """Cap the child's address space at what it inherited plus `memory_allowance()` (Linux only:
    elsewhere the size of what is mapped is not at hand, and macOS does not enforce RLIMIT_AS)."""
    import resource

    try:
        with open("/proc/self/oom_score_adj", "w", encoding="ascii") as score:
            score.write("1000")  # should the machine run short anyway, the child goes first
    except OSError:
        pass
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return
    limit = mapped + memory_allowance()
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _child_main(work: Callable[[int], tuple], numbers: range, fd: int,
                prepare: Callable[[], object] | None) -> NoReturn:
    """The forked child: run the cases, send each answer, and never return into the kernel."""
    code = _BROKEN
    try:
        os.setpgid(0, 0)
        faulthandler.disable()  # a crash is reported as a verdict, not as the kernel's stack
        _limit_memory()
        send = _Sender(fd)
        sys.stdout, sys.stderr = _Relay(send, "out"), _Relay(send, "err")
        sys.stdin = open(os.devnull, encoding="utf-8")
        builtins.input = _no_input
        if prepare:
            prepare()
        for number in numbers:
            send({"start": number})
            send({"value": work(number)})
        code = 0
    finally:
        os._exit(code)
