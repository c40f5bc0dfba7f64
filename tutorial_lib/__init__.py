"""tutorial_lib: the computation behind the 分词与序列打包 notebooks.

The course has two halves so far, and so has the library:

- `tutorial_lib.tokenization`: text -> token ids (its package docstring lists a module per concept);
- `tutorial_lib.packing`: token ids -> training rows (padding, masks, packing, Megatron's
  .bin/.idx). It works on ids, whatever made them, and imports nothing from `tokenization`;
- `tutorial_lib.pipeline` joins the two: corpus files -> `Tokenizer` -> a .bin/.idx dataset, in
  constant memory, also from the command line (`python -m tutorial_lib.pipeline build ...`).

Beneath them: `_checks` (argument checks), `_files` (atomic writes, strict UTF-8 reading),
`_parallel` (the one Ctrl-C-safe worker pool) and `data` (the bundled corpora, hash-checked). Above
them, the course's own tools, which show and check but compute nothing of their own: `display`
(tables and tokens), `palette` (the colours), `plotting` and `widgets` (a module per half),
`exercises` (the checkers, a module per chapter) and `course` (the chapter map and the environment
check). tests/test_layout.py holds who may import whom. A notebook imports what it teaches from the
module of that concept.
"""

__version__ = "0.1.0"
