"""Byte-pair encoding, from the toy to GPT's tokenizer (chapters 02 and 04-06).

- `bpe_toy`: character BPE with `</w>`, step by step, every step traced (02);
- `vocab_size`: smaller vocabularies as prefixes of the merges, embedding parameters (04);
- `pretokenize`: GPT-2's, GPT-4's and nanochat's split patterns, special tokens (03, 05);
  `tiktoken_probe`: where tiktoken's regex engine reads Unicode differently (05);
- `tokenizer`: `Tokenizer`, encode by merge rank and decode (05), on `fast_encode` (the merge loop
  with its cache) and `vocab_check`; functions that take or return one: `formats` (from tiktoken
  and GPT-2's files), `stream_encode` (encode_iterable), `trainer.train_tokenizer`;
  `course_tokenizer`, `chat` and `token_healing` use it;
- `corpus`, `trainer`, `trainer_stages`: a training corpus counted, the fast trainer and the
  trainers in between, one speed-up at a time (06).
"""
