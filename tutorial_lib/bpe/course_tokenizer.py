"""The packing chapters' tokenizer: one byte-level BPE trained once on the bundled corpora.

Chapters 07-09 measure in token counts, and a count depends on the tokenizer (when each chapter
trained its own, the same 1,727 stories averaged 203.4, 225.4 and 214.4 tokens). So they load one,
shipped in data/: a story is as long in chapter 09 as in 07. tests/ retrains it and compares bytes.
"""

from __future__ import annotations

from tutorial_lib import data
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.contract import manifest

VOCAB_SIZE = 4096
PAD_TOKEN = "<|pad|>"
SPECIAL_TOKENS = (data.ENDOFTEXT, PAD_TOKEN)


def documents() -> dict[str, list[str]]:
    """The packing chapters' documents by corpus: stories, Lu Xun's paragraphs (one per line; the
    blank lines between them are not documents), Tatoeba sentences."""
    return {
        "TinyStories 故事": data.tinystories_documents(),
        "鲁迅段落": [line for line in data.load_text("luxun").splitlines() if line.strip()],
        "Tatoeba 句子": data.load_text("tatoeba_cmn").splitlines(),
    }


def train() -> Tokenizer:
    """Train it from scratch on every document of the three corpora."""
    texts = [text for docs in documents().values() for text in docs]
    return train_tokenizer(texts, VOCAB_SIZE, special_tokens=SPECIAL_TOKENS)


def load() -> Tokenizer:
    """The shipped tokenizer, after checking the file's sha256 against data/PROVENANCE.md."""
    return manifest.load(data.course_tokenizer_path())
