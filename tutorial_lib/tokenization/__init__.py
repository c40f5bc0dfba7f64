"""The first half of the course: from text to token ids.

- `d2l`: D2L's cleaning, char/word tokens and `Vocab` (chapter 01);
- `bpe_toy`: character BPE with `</w>`, step by step (chapter 02);
- `pretokenize`: the split patterns of GPT-2, GPT-4 and nanochat, and special tokens;
- `corpus`: a training corpus streamed from a file or a list of texts, and its pre-tokens counted;
- `trainer`: byte-level BPE training, a naive reference and a fast trainer with identical output;
- `trainer_stages`: the trainers in between, one speed-up at a time (chapter 06);
- `tokenizer`: `Tokenizer`, encode/decode by merge rank, tiktoken and GPT-2 files, save/load;
- `metrics`: bytes, character coverage and compression of a text and its tokens (chapter 03);
- `unigram`: how a Unigram model (SentencePiece's default) segments: Viterbi over piece log-probabilities;
- `compare`: our tokenizers, SentencePiece and tiktoken measured side by side;
- `vocab_size`: smaller vocabularies as prefixes of the merges, utilization, embedding parameters (chapter 04);
- `chat`: a conversation rendered with role tokens and a supervision mask (chapter 05).
"""
