import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # unit tests draw off-screen; notebooks use the inline backend
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # so tests can import the reference solutions in solutions/
