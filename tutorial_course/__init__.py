"""tutorial_course: the course machinery around the lesson, which no chapter asks a learner to read.

- `chapters`: the chapter map (notebooks, the lesson modules each teaches), the environment check;
- `exercises`: `check` (what notebooks import), the exercises of each chapter, the checker's
  isolation (the learner's code runs apart; the kernel survives anything);
- `classroom`: the nbgrader course (release, autograde, gradebook, class report).

It imports the lesson (`tutorial_lib`), never the production path (`tutorial_pipeline`).
"""
