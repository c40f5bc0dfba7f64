"""exercises.sandbox on its own: answers in order, a child that ends early, the deadline, a broken pipe.
What `check` makes of these is in tests/course/test_exercises.py and tests/course/exercises/test_checker_faults.py."""

import os
import signal
import sys

import pytest

from tutorial_course.exercises import sandbox
from tutorial_course.exercises.sandbox import Ended, run_each

pytestmark = pytest.mark.skipif(not sandbox.CAN_FORK, reason="the forked sandbox needs os.fork")


def test_answers_come_back_in_order_as_tuples():
    assert run_each(lambda k: ("ok", str(k * k)), 4, 5) == [("ok", "0"), ("ok", "1"), ("ok", "4"), ("ok", "9")]
    assert run_each(lambda k: ("ok", ""), 0, 5) == []


def test_a_child_that_ends_early_is_replaced_for_the_rest():
    def work(k):
        if k == 1:
            os._exit(7)
        if k == 2:
            os.kill(os.getpid(), signal.SIGSEGV)
        return ("ok", str(k))

    assert run_each(work, 4, 5) == [("ok", "0"), Ended(exit_code=7), Ended(signal_name="SIGSEGV"), ("ok", "3")]


def test_the_list_stops_at_the_first_case_past_its_deadline():
    def work(k):
        while k == 1:
            pass
        return ("ok", str(k))

    assert run_each(work, 3, 0.2) == [("ok", "0"), Ended(timed_out=True)]


@pytest.mark.parametrize("garbage", [b"not json\n", b"[" * 100_000 + b"\n", b"[1]\n", b'{"value": 3}\n',
                                     b"x" * (sandbox.LINE_LIMIT + 1)])
def test_a_child_that_garbles_the_pipe_gets_no_answer_and_the_rest_do(garbage):
    def work(k):
        if k == 0:  # a stray write to the pipe, past the checker's messages
            os.write(sys.stdout.send.fd, garbage)
        return ("ok", str(k))

    assert run_each(work, 2, 5) == [Ended(), ("ok", "1")]


def test_a_grandchild_never_answers():
    def work(k):
        os.fork()
        return ("ok", str(os.getpid()))

    answers = run_each(work, 3, 5)
    assert len(answers) == 3 and len(set(answers)) == 1  # one process answered every case
