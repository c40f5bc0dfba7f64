"""The tokenizer as a versioned contract (chapter 13): `normalize` (the forms applied before BPE)
and `normalization_effect`, `offsets` (each token's span in the original text), `golden` (inputs
and their expected outputs, as a file) and `stream_decode` (whole characters only)."""
