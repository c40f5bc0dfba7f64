"""Chapter 08 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch08
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_lib.packing import strategies


def test_the_greedy_checker_shows_a_row_filled_exactly():
    message = check("08.greedy_rows", ch08.WRONG_ANSWERS["greedy_rows"]).message
    assert "[[0], [1]]" in message or "[[0, 1]" in message  # the smallest failing case: a row exactly full


def test_the_cases_are_the_library_strategies():
    for case in exercises.REGISTRY["08.pad_utilization"].make_cases():
        assert case.expected == strategies.pad(*case.args).utilization
    for case in exercises.REGISTRY["08.greedy_rows"].make_cases():
        result = strategies.greedy(*case.args)
        assert case.expected == [[s.doc for s in result.segments(r)] for r in range(result.n_rows)]


def _rows(result):
    return [[s.doc for s in result.segments(r)] for r in range(result.n_rows)]


def test_the_bin_packers_are_held_to_the_library_row_for_row_on_real_documents():
    for key, strategy in (("08.ffd_rows", strategies.ffd), ("08.bfd_rows", strategies.bfd)):
        cases = exercises.REGISTRY[key].make_cases()
        assert all(case.expected == _rows(strategy(*case.args)) for case in cases)
        assert max(len(case.args[0]) for case in cases) >= 1500  # whole corpora, not only toys
    for case in exercises.REGISTRY["08.bestfit_crop_rows"].make_cases():
        lengths, seq_len, buffer_size, refill = case.args
        result = strategies.bestfit_crop(lengths, seq_len, buffer_size=buffer_size, refill=refill)
        assert case.expected == (_rows(result), result.dropped)


def _ties_reversed(lengths, seq_len):
    # Sorts (length, index) pairs in reverse: equal lengths come last index first.
    order = [i for _, i in sorted(((n, i) for i, n in enumerate(lengths)), reverse=True)]
    rows, used = [], []
    for i in order:
        r = next((r for r in range(len(rows)) if used[r] + lengths[i] <= seq_len), len(rows))
        if r == len(rows):
            rows.append([])
            used.append(0)
        rows[r].append(i)
        used[r] += lengths[i]
    return rows


def _newest_of_the_tightest(lengths, seq_len):
    # Best fit with >= : of equally tight rows it takes the newest, not the oldest.
    rows, used = [], []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        best = -1
        for r in range(len(rows)):
            if used[r] + lengths[i] <= seq_len and (best < 0 or used[r] >= used[best]):
                best = r
        if best < 0:
            rows.append([])
            used.append(0)
        rows[best].append(i)
        used[best] += lengths[i]
    return rows


def _crops_the_first_arrival(lengths, seq_len, buffer_size, refill):
    # nanochat before it cropped the shortest: when nothing fits, crop the oldest buffered document.
    pending, buffer, rows, dropped, pos = list(range(len(lengths))), [], [[]], 0, 0
    while pending or buffer:
        while len(buffer) < buffer_size and pending:
            buffer += pending[:refill]
            del pending[:refill]
        room = seq_len - pos
        fits = [k for k, d in enumerate(buffer) if lengths[d] <= room]
        k = max(fits, key=lambda k: (lengths[buffer[k]], -k)) if fits else 0
        dropped += max(lengths[buffer[k]] - room, 0)
        d = buffer.pop(k)
        rows[-1].append(d)
        pos += min(lengths[d], room)
        if pos == seq_len and (pending or buffer):
            rows.append([])
            pos = 0
    return (rows if rows[0] else []), dropped


def test_the_checkers_catch_ties_broken_the_other_way_and_the_old_crop():
    assert check("08.ffd_rows", ch08.ffd_rows).passed and check("08.bfd_rows", ch08.bfd_rows).passed
    assert check("08.ffd_rows", _ties_reversed).verdict == "未通过"
    assert check("08.bfd_rows", _newest_of_the_tightest).verdict == "未通过"
    assert check("08.bfd_rows", ch08.ffd_rows).verdict == "未通过"  # first fit is not best fit
    assert check("08.ffd_rows", ch08.bfd_rows).verdict == "未通过"
    assert check("08.bestfit_crop_rows", _crops_the_first_arrival).verdict == "未通过"
    # refilling one document at a time: the smallest failing case is the one the library's test explains
    message = check("08.bestfit_crop_rows", ch08.WRONG_ANSWERS["bestfit_crop_rows"]).message
    assert "bestfit_crop_rows([1, 2, 9], 10, 2, 128)" in message
