"""Text before subwords (chapters 01 and 03): `d2l` (D2L's cleaning, char and word tokens, `Vocab`),
`characters` (UTF-8 bytes, Han, inventory and coverage), `measure` (compression, utilization, the
comparison table) and `compare` (real tokenizers side by side)."""
