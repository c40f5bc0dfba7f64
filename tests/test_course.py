from tutorial_lib import course


def test_chapters_are_numbered_in_order_and_name_their_notebooks():
    numbers = [c.number for c in course.CHAPTERS]
    assert numbers == [f"{i:02d}" for i in range(len(numbers))]
    assert all(c.stem.startswith(c.number + "_") for c in course.CHAPTERS)
    assert course.CHAPTERS[0].available  # notebook 00 ships with the repo


def test_environment_report_checks_font_and_widgets():
    rows = dict(course.environment_report())
    assert rows["中文字体"].endswith("（字形完整）")
    assert rows["ipywidgets 控件"] == "正常"
    assert all(rows[name] != "缺失" for name in course.PACKAGES)


def test_missing_package_is_reported_not_raised(monkeypatch):
    monkeypatch.setattr(course, "PACKAGES", ["numpy", "no-such-package-here"])
    assert course.package_versions()["no-such-package-here"] == "缺失"
