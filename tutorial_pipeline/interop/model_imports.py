"""The model tokenizers of `model_tokenizers`, loaded into our own Tokenizer.

`model_tokenizers` runs Qwen's files in tiktoken and DeepSeek's in `tokenizers`. Here the same
hash-checked files become `Tokenizer`s, so that everything the course built (offsets, streaming,
the digest, the dataset manifest) works on the tokenizers Chinese learners meet, with the ids of
their own library (tests/pipeline/interop/test_model_imports.py checks every bundled corpus):

- Qwen2.5: its tiktoken ranks read by `formats.from_tiktoken`, with normalization "NFC" (what the
  package's wrapper does before encoding).
- DeepSeek-V4: its tokenizer.json read by `hf_json`. Its pre-tokenizer is three Splits in a row
  (digits in threes, then runs of CJK and kana, then a GPT-4-like regex on each piece), which one
  split pattern cannot say directly; `DEEPSEEK_V4_PATTERN` is one regex that cuts every text the
  same way (below: how), passed as `pattern=`. Its 1,283 added tokens become special tokens.
- Qwen3.6 cannot be loaded, and is refused: its vocabulary holds tokens that no merge list
  makes. 267 of them cannot be recovered in rank order (人力资源 at rank 99,655 from 人 + 力 +
  资源, while 人力 comes later), and even with merges allowed out of rank order 201 are made
  by no merges at all: tiktoken gives them only through its whole-piece look-up, which takes a
  pre-token that is itself a vocabulary entry as one token before merging (" möglicherweise" is
  rank 206,765; Hugging Face calls the same step ignore_merges). Our model always merges, so it
  lacks that step; `tokenizer("Qwen3.6")` raises from_tiktoken's ValueError, which names the
  first token.

Each of these loads 128k to 152k tokens: 1.5 to 3 s. `tokenizer(name)` keeps one per process.
"""

from __future__ import annotations

import functools
import json

from tutorial_lib._checks import check_choice, check_str
from tutorial_lib.bpe import formats
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.text import model_tokenizers
from tutorial_pipeline.interop import hf_json

# DeepSeek-V4's three Splits as one pattern. A piece is one of: up to three digits (the first
# Split); a piece of a CJK/kana run (the second Split), which the third Split then cuts into letter
# runs, punctuation runs and the rest; or a piece the third Split makes between them, where every
# class leaves out digits and CJK (`_IN`: the text between them) and "not followed by a non-space"
# also holds where that text ends. The last alternative of each is the third Split's gaps: text at
# which none of its regexes starts, which Hugging Face keeps as a piece.
_CJK = "[一-龥぀-ゟ゠-ヿ]"
_IN = rf"(?!\p{{N}}|{_CJK})"
_ASCII_WORD = r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+"""
_WORD = rf"(?:{_IN}[^\r\n\p{{L}}\p{{P}}\p{{S}}])?(?:{_IN}[\p{{L}}\p{{M}}])+"
_PUNCT = rf" ?(?:{_IN}[\p{{P}}\p{{S}}])+[\r\n]*"
_SPACE = rf"\s*[\r\n]+|\s+(?!{_IN}\S)|\s+"
_CJK_WORD = rf"(?:(?={_CJK})[^\r\n\p{{L}}\p{{P}}\p{{S}}])?(?:(?={_CJK})[\p{{L}}\p{{M}}])+"
_CJK_PUNCT = rf"(?:(?={_CJK})[\p{{P}}\p{{S}}])+"
DEEPSEEK_V4_PATTERN = (
    rf"\p{{N}}{{1,3}}"
    rf"|{_CJK_WORD}|{_CJK_PUNCT}|(?:(?={_CJK})(?!{_CJK_WORD}|{_CJK_PUNCT})[\s\S])+"
    rf"|{_ASCII_WORD}|{_WORD}|{_PUNCT}|{_SPACE}|(?:{_IN}(?!{_ASCII_WORD}|{_WORD}|{_PUNCT}|\s)[\s\S])+"
)


def _qwen(name: str) -> Tokenizer:
    """A Qwen tiktoken file's ranks through `formats.from_tiktoken`, with normalization "NFC" (what
    the package's wrapper does before encoding)."""
    encoding = model_tokenizers.qwen_encoding(name)
    return formats.from_tiktoken(encoding, normalization="NFC")


def qwen25() -> Tokenizer:
    """Qwen up to 2.5 in our Tokenizer: its 151,643 ranks, QWEN25_PATTERN, NFC."""
    return _qwen("Qwen2.5")


def qwen36() -> Tokenizer:
    """Qwen3.5 / 3.6: refused by from_tiktoken (see the module docstring), with its message."""
    return _qwen("Qwen3.6")


def deepseek_v4() -> Tokenizer:
    """DeepSeek-V4's tokenizer.json in our Tokenizer, cut by DEEPSEEK_V4_PATTERN; its added tokens
    are special tokens."""
    spec = json.loads(model_tokenizers.read_checked("DeepSeek-V4"))
    parts = hf_json.from_spec(spec, "DeepSeek-V4 tokenizer.json", DEEPSEEK_V4_PATTERN)
    return Tokenizer(*parts)


LOADERS = {"Qwen2.5": qwen25, "Qwen3.6": qwen36, "DeepSeek-V4": deepseek_v4}


@functools.lru_cache(maxsize=None)
def tokenizer(name: str) -> Tokenizer:
    """The model tokenizer `name` (a key of LOADERS) as our Tokenizer, built once per process."""
    return LOADERS[check_choice(check_str(name, "name"), "name", LOADERS)]()
