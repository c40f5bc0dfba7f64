"""Byte-pair encoding, from the toy to GPT's tokenizer (chapters 02 and 04-06).

- `bpe_toy`: character BPE with `</w>`, step by step, every step traced (02);
- `vocab_size`: smaller vocabularies as prefixes of the merges, embedding parameters (04);
- `pretokenize`, `tiktoken_probe`: split patterns and special tokens, tiktoken's Unicode (03, 05);
- `tokenizer`: `Tokenizer` (05), on `fast_encode` and `vocab_check`; `formats`, `stream_encode`,
  `course_tokenizer`, `chat` and `token_healing` make or use one;
- `corpus`, `merge`, `trainer`, `trainer_stages`: corpus counts, pair merges, the trainers (06).
"""
