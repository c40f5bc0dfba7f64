"""Judging a tokenizer (chapter 12): `evaluate` (token premium across languages), `bits_per_byte`
(a model's loss in a unit every tokenizer shares), `mixes` (training mixes and vocabulary budgets),
`superbpe` (superwords across spaces) and `model_tokenizers` (GPT-2, cl100k, Qwen and DeepSeek
loaded and measured)."""
