"""Token ids -> training rows: padding and masks, the packing strategies that waste less padding,
and Megatron's .bin/.idx files with the samples a training run reads from them.

- `batch`: padding a batch, its labels (IGNORE_INDEX), bucketing, and the one padding share;
- `masks`: causal, padding, causal + padding and document masks, doc_ids (PAD), position ids,
  FlashAttention's varlen arguments;
- `strategies` (with `fit_trees`): pad, greedy, concat-and-chunk, first/best-fit decreasing,
  nanochat's best-fit crop;
- `attention`: a numpy attention head that shows what a mask does;
- `megatron` (with `megatron_format`, the `.idx` layout, and `bin_ids`, ids checked to fit the
  dtype), `gpt_samples`, `mmap_demo`: the .bin/.idx pair as megatron-core reads and writes it,
  Megatron's samples, what mmap costs. Replacing a pair safely (temporary files renamed as one,
  the record that ties the two files, the manifest of the tokenizer and corpus that made them) is
  the production path's, not the lesson's.

Everything here works on lists of ids, whatever tokenizer made them, so nothing imports from the
tokenization families (`text`, `bpe`, `unigram`, `wordpiece`, `evaluation`, `contract`).
"""
