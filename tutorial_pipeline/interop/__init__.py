"""Our tokenizer in the tools practitioners use (chapter 13, section 7): `hf_json` (a Hugging Face
tokenizer.json both ways, its split pattern rewritten for Oniguruma by `onig_regex`),
`tiktoken_export` (a tiktoken Encoding) and `model_imports` (Qwen2.5 and DeepSeek-V4 read into our
`Tokenizer`)."""
