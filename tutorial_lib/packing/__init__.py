"""Token ids -> training rows: padding and masks, the packing strategies that waste less padding,
and Megatron's .bin/.idx files with the samples a training run reads from them.

- `batch`: padding a batch, its labels (IGNORE_INDEX), bucketing, and the one padding share;
- `masks`: causal, padding, causal + padding and document masks, doc_ids (PAD), position ids,
  FlashAttention's varlen arguments;
- `strategies` (with `fit_trees`): pad, greedy, concat-and-chunk, first/best-fit decreasing,
  nanochat's best-fit crop;
- `attention`: a numpy attention head that shows what a mask does;
- `megatron` (with `megatron_format`, the `.idx` layout, and `pair`, the record that ties the two
  files), `gpt_samples`, `mmap_demo`: the .bin/.idx pair, Megatron's samples, what mmap costs;
- `dataset_manifest`: `<prefix>.manifest.json`, what a dataset records of the tokenizer and corpus
  that made it, with the checksums that verify it.

Everything here works on lists of ids, whatever tokenizer made them, so nothing imports from
`tutorial_lib.tokenization`.
"""
