"""Run every benchmarks/bench_*.py (or the names given), print what each measures, and keep the output.

Each benchmark's output also goes to benchmarks/results/<name>.txt (replaced on every run), so a notebook can
show the figures of the last run without running a benchmark that takes minutes.
"""
import contextlib
import io
import runpy
import sys
from pathlib import Path

from tutorial_lib.data import write_atomically

here = Path(__file__).parent


class Tee(io.TextIOBase):
    """Writes to the terminal as the benchmark runs and keeps a copy."""

    def __init__(self) -> None:
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        sys.__stdout__.write(text)
        sys.__stdout__.flush()
        return self.copy.write(text)


names = sys.argv[1:] or sorted(p.stem for p in here.glob("bench_*.py"))
if not names:
    print("no benchmarks yet: add benchmarks/bench_<topic>.py")
for name in names:
    print(f"=== {name} ===", flush=True)
    tee = Tee()
    with contextlib.redirect_stdout(tee):
        runpy.run_path(str(here / f"{name}.py"), run_name="__main__")
    (here / "results").mkdir(exist_ok=True)
    write_atomically(here / "results" / f"{name}.txt", tee.copy.getvalue())
