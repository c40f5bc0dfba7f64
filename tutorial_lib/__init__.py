"""tutorial_lib: the lesson, the code the chapters of 分词与序列打包 teach and learners read.

One family per part of the course, one idea per module:

- `text` (01, 03): D2L's text and `Vocab`, the characters of a text, measuring and comparing
  tokenizers;
- `bpe` (02, 04-06): the toy BPE, pre-tokenization, training, `Tokenizer`, vocabulary size;
- `unigram`, `wordpiece` (11): the other two subword algorithms, trained and compared;
- `evaluation` (12): token premium, bits per byte, mixes, superwords, the model tokenizers;
- `contract` (13): normalization, offsets, golden vectors, streaming decode;
- `packing` (07-10): padding and masks, packing strategies, attention, Megatron's .bin/.idx;
- `show`: tables, colours, plots and widgets that lay out what the rest computed.

Beneath them: `data` (the bundled corpora, hash-checked), the argument checks, one line at each
call site (`_checks`: values and sequences; `_check_files`, `_check_data`), and `_memory` (refuse an
array that cannot fit). Nothing here imports the course
machinery (`tutorial_course`) or the production path (`tutorial_pipeline`).
"""

__version__ = "0.1.0"
