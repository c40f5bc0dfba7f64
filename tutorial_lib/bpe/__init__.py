"""Byte-pair encoding, from the toy to GPT's tokenizer (chapters 02 and 04-06).

- `bpe_toy`: character BPE with `</w>`, step by step, every step traced (02);
- `vocab_size`: smaller vocabularies as prefixes of the merges, embedding parameters (04);
- `pretokenize`: GPT-2's, GPT-4's and nanochat's split patterns, special tokens (05);
- `tokenizer`: `Tokenizer`, encode by merge rank and decode (05), on `fast_encode` (the merge loop
  with its cache), `stream_encode` (encode_iterable), `vocab_check` and `formats` (tiktoken and
  GPT-2 files, save/load, the manifest and its digest); `course_tokenizer`, `chat` and
  `token_healing` use it;
- `corpus`, `trainer`, `trainer_stages`: a training corpus counted, the fast trainer and the
  trainers in between, one speed-up at a time (06).
"""
