"""Token ids -> training rows: padding and masks, the packing strategies that waste less padding, and
Megatron's .bin/.idx files with the samples a training run reads from them.

Everything here works on lists of ids, whatever tokenizer made them, so nothing imports from
`tutorial_lib.tokenization`.
"""
