"""Token ids -> training rows: padding and masks, and the packing strategies that waste less padding.

Everything here works on lists of ids, whatever tokenizer made them, so nothing imports from
`tutorial_lib.tokenization`.
"""
