import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # unit tests draw off-screen; notebooks use the inline backend
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # so tests can import the reference solutions in solutions/


@pytest.fixture(autouse=True)
def fresh_exercise_session():
    """Each test starts as a new learner session: the checkers have counted no failures yet."""
    from tutorial_course import exercises

    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


@pytest.fixture
def chinese_figures():
    """Plots drawn with the course's Chinese font inside their own matplotlib settings, closed afterwards.
    Plot test files ask for it with `pytestmark = pytest.mark.usefixtures("chinese_figures")`."""
    import matplotlib.pyplot as plt

    from tutorial_lib.show.plotting import setup_chinese

    with matplotlib.rc_context():
        setup_chinese()
        yield
    plt.close("all")
