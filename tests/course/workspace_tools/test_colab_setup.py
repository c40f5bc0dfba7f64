"""tutorial_course/colab_setup.py: on a hosted runtime, install only what is missing and never move the
runtime's own packages. (Colab itself cannot be reached from the tests; README says what was run.)"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
from tutorial_course import colab_setup


def test_requirements_are_the_dependencies_and_the_compared_libraries():
    names = {colab_setup.name_of(r) for r in colab_setup.requirements()}
    assert {"numpy", "ipywidgets", "zhplot", "tiktoken", "sentencepiece"} <= names
    assert not names & {"pytest", "nbval", "ruff", "nbgrader"}  # the test and classroom tools


def test_pins_pick_the_line_for_this_python(tmp_path):
    (tmp_path / "constraints.txt").write_text(
        '# comment\nzhplot==1.0.0\nnumpy==2.4.6; python_version >= "3.11"\n'
        'numpy==2.2.6; python_version < "3.11"\n', encoding="utf-8")
    pinned = colab_setup.pins(tmp_path)
    assert pinned["zhplot"] == "1.0.0"
    assert pinned["numpy"] == ("2.4.6" if sys.version_info >= (3, 11) else "2.2.6")
    assert set(colab_setup.pins()) >= {"tiktoken", "zhplot"}  # the real file parses


def test_survey_finds_missing_and_too_old_and_skips_jupyterlab():
    missing, old = colab_setup.survey(["no-such-package-xyz>=1", "pip>=999", "jupyterlab>=4.2",
                                       "pytest>=1"])
    assert missing == ["no-such-package-xyz"]
    assert len(old) == 1 and old[0].startswith("pip ") and old[0].endswith("< 999")


def test_install_pins_only_the_missing_then_the_package_without_dependencies():
    first, package = colab_setup.install_commands(["zhplot", "unpinned"], {"zhplot": "1.0.0"})
    assert first[:4] == [sys.executable, "-m", "pip", "install"]
    assert first[-2:] == ["zhplot==1.0.0", "unpinned"] and "-c" not in first
    assert package[-2:] == ["--no-deps", str(ROOT)] and "-e" not in package
    assert colab_setup.install_commands([], {}) == [package]
