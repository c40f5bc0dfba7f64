"""The tokenizer as a versioned contract (chapter 13): `manifest` (save, load, the manifest and the
digest; first used in 05), `normalize` (the forms applied before BPE), `normalize_cuts` (where
normalization can be cut) and `normalization_effect`, `offsets` (each token's span in the original
text), `golden` (inputs and their expected outputs, as a file) and `stream_decode` (whole
characters only)."""
