"""The first half of the course: from text to token ids. One concept per module, in course order.

- `d2l`: D2L's cleaning, char/word tokens and `Vocab` (chapter 01);
- `bpe_toy`: character BPE with `</w>`, step by step, with the trace of every step (chapter 02);
- `characters`: the characters of a text: UTF-8 bytes, Han, inventory and coverage (chapter 03);
- `pretokenize`: the split patterns of GPT-2, GPT-4 and nanochat, and special tokens;
- `unigram`: how a Unigram model (SentencePiece's default) segments: Viterbi over log-probabilities;
  `unigram_sample` samples and lists the n best segmentations (subword regularization),
  `unigram_train` trains one (seed, EM, pruning) on `unigram_lattice` (a corpus's lattices as
  arrays), and `byte_fallback` spells characters the vocabulary lacks as <0xE4> pieces (chapter 11);
- `measure`: the one home for measuring a tokenizer on text: compression, utilization, the table;
- `bits_per_byte`: an n-gram model over a tokenizer's ids, scored in bits per UTF-8 byte;
- `compare`: real tokenizers (ours, tiktoken, SentencePiece, a word `Vocab`) side by side;
- `vocab_size`: smaller vocabularies as prefixes of the merges, embedding parameters (chapter 04);
- `tokenizer`: `Tokenizer`: build, encode by merge rank, decode (chapter 05), on top of
  `fast_encode` (the merge loops, the piece cache, exact cuts) and `formats` (tiktoken and GPT-2
  files, save/load, the manifest and its digests);
- `normalize`: the normalization forms a tokenizer may apply before BPE, aligned to the original
  text; `normalization_effect` measures what a form does to compression and ids (chapter 13);
- `stream_encode`: `Tokenizer.encode_iterable`'s streaming encoder; `stream_decode` the streaming
  decoder a serving loop needs (whole characters only);
- `offsets`: each token's character span in the original text (chapter 13);
- `golden`: golden vectors, the tokenizer's contract as a file of inputs and expected outputs;
- `hf_json`: our Tokenizer as a Hugging Face tokenizer.json and a byte-level BPE one read back (its
  split pattern rewritten for Oniguruma by `onig_regex`); `tiktoken_export`: our Tokenizer as a
  tiktoken Encoding; `model_imports`: Qwen2.5 and DeepSeek-V4 loaded into our Tokenizer;
  `vocab_check`: the rules every Tokenizer's vocabulary and merges keep;
- `chat`: a conversation rendered with role tokens and a supervision mask (chapter 05);
- `corpus`: a training corpus streamed from a file or a list of texts, its pre-tokens counted;
- `trainer`: byte-level BPE training, a naive reference and a fast trainer with identical merges;
- `trainer_stages`: the trainers in between, one speed-up at a time (chapter 06);
- `superbpe`: SuperBPE, BPE in two stages whose second merges across spaces (superwords);
- `wordpiece`: BERT's pre-tokenizer and greedy longest-match encoder, beside Hugging Face's, and
  `wordpiece_train`: WordPiece training by the score freq(ab) / (freq(a) freq(b)) (chapter 11);
- `sp_settings`: SentencePiece trained with one setting changed at a time, measured on held-out
  Chinese (chapter 11).
"""
