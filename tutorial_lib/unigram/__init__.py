"""Unigram, SentencePiece's default (chapter 11): `model` (Viterbi over log-probabilities),
`lattice` (a corpus's lattices as arrays), `train` (seed, EM, pruning), `sample` (subword
regularization, n-best), `byte_fallback` (<0xE4> pieces), `compare` (against SentencePiece's trainer)
and `sp_settings` (SentencePiece on Chinese, one setting changed at a time)."""
