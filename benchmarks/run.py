"""Run every benchmarks/bench_*.py (or the names given) and print what each measures."""
import runpy
import sys
from pathlib import Path

here = Path(__file__).parent
names = sys.argv[1:] or sorted(p.stem for p in here.glob("bench_*.py"))
if not names:
    print("no benchmarks yet: add benchmarks/bench_<topic>.py")
for name in names:
    print(f"=== {name} ===", flush=True)
    runpy.run_path(str(here / f"{name}.py"), run_name="__main__")
