"""WordPiece, BERT's tokenizer (chapter 11): `model` (the pre-tokenizer and greedy longest-match
encoder) and `train` (merges by the score freq(ab) / (freq(a) freq(b)))."""
