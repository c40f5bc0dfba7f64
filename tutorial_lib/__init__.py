"""tutorial_lib: the computation behind the 分词与序列打包 notebooks.

The course has two halves, and so has the library:

- `tutorial_lib.tokenization`: text -> token ids (pre-tokenization, D2L's Vocab, the character BPE toy,
  the byte-level trainer, `Tokenizer`, metrics, side-by-side comparison);
- `tutorial_lib.packing`: token ids -> training rows (padding and masks, packing strategies, document
  masks, the Megatron .bin/.idx format and the training samples read from it). It works on ids, whatever
  made them, and imports nothing from `tokenization`;
- `tutorial_lib.pipeline` joins the two: corpus files -> `Tokenizer` -> a .bin/.idx dataset, in constant
  memory, also from the command line (`python -m tutorial_lib.pipeline build ...`).

Around them sit the course's own tools: `data` (the bundled corpora, hash-checked), `display` (tables and
tokens), `plotting` (Chinese labels on any machine), `widgets`, `exercises` (the checkers), `course`
(chapter map and environment check). A notebook imports what it teaches from the module of that name.
"""

__version__ = "0.1.0"
