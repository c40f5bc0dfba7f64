"""Unigram, SentencePiece's default (chapter 11).

- `model`: Viterbi over log-probabilities; `lattice`: a corpus's lattices as arrays;
- `train`: seed, EM and pruning; `sample`: subword regularization and the n best;
- `byte_fallback`: characters spelled as <0xE4> pieces; `compare`: against SentencePiece's trainer;
- `sp_settings`: SentencePiece on Chinese, one setting changed at a time.
"""
