"""tutorial_lib: the lesson, the code the chapters of 分词与序列打包 teach and learners read.

One family per part of the course, one idea per module: `text` (01, 03), `bpe` (02, 04-06),
`unigram` and `wordpiece` (11), `evaluation` (12), `contract` (13), `packing` (07-10), and `show`,
which lays out what the others computed. Beneath them: `data` (the bundled corpora, hash-checked),
the argument checks (`_checks`, `_check_files`, `_check_data`: one line at each call site) and
`_memory` (refuse an array that cannot fit). Nothing here imports the course machinery
(`tutorial_course`) or the production path (`tutorial_pipeline`).
"""

__version__ = "0.1.0"
