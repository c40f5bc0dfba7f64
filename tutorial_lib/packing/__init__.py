"""Token ids -> training rows: padding and masks (`batch`, `masks`), the packing strategies that
waste less padding (`strategies`, `fit_trees`), a numpy attention head that shows what a mask does
(`attention`), and Megatron's .bin/.idx files (`megatron`, `megatron_format`, `bin_ids`) with the
samples a training run reads from them (`gpt_samples`) and what mmap costs (`mmap_demo`).

Everything here works on lists of ids, whatever tokenizer made them, so nothing imports from the
tokenization families.
"""
