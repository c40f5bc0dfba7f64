"""Several tokenizers behind one small interface, so they can be measured on the same Chinese text.

`Segmenter` wraps our byte-level BPE (`tokenizer.Tokenizer`), a SentencePiece model and a tiktoken encoding
(GPT-4's cl100k). Each gives token ids and the bytes of every token, which is all that the metrics need.
`train_sentencepiece` trains SentencePiece in memory (nothing is written to disk) and deterministically.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tutorial_lib.tokenization import metrics
from tutorial_lib.tokenization.d2l import visible

# GPT-2's pattern with one change: every Han character is a pre-token of its own, and letter runs exclude Han
# (`[^\P{L}\p{Han}]` = a letter that is not Han). Merges can then build characters but never words: the
# "character-level start" of Chinese BERT, done with bytes.
HAN_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)|\p{Han}| ?[^\P{L}\p{Han}]+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

SP_UNDERLINE = "\u2581"  # "▁", SentencePiece's visible stand-in for a space


@dataclass(frozen=True)
class Segmenter:
    """A tokenizer reduced to what a comparison needs: a name, a vocabulary size, ids, and the bytes of an id."""

    name: str
    vocab_size: int
    encode: Callable[[str], list[int]]
    token_bytes: Callable[[int], bytes]

    def tokens(self, text: str) -> list[bytes]:
        """The bytes of each token of `text`, in order."""
        return [self.token_bytes(i) for i in self.encode(text)]


def from_tokenizer(name: str, tokenizer: Any) -> Segmenter:
    """Wrap a `tutorial_lib.tokenizer.Tokenizer` (ordinary text: special tokens are not looked for)."""
    return Segmenter(name, len(tokenizer.vocab), tokenizer.encode_ordinary, tokenizer.token_bytes)


def from_tiktoken(name: str, encoding: Any) -> Segmenter:
    """Wrap a tiktoken Encoding such as cl100k_base."""
    return Segmenter(name, encoding.n_vocab, encoding.encode_ordinary, encoding.decode_single_token_bytes)


def sentencepiece_bytes(processor: Any) -> Callable[[int], bytes]:
    """id -> bytes for a SentencePiece model: "▁" is a space, a byte-fallback piece "<0xE4>" is that byte."""

    def token_bytes(token_id: int) -> bytes:
        if processor.is_byte(token_id):
            return bytes([int(processor.id_to_piece(token_id)[1:-1], 16)])
        if processor.is_control(token_id) or processor.is_unknown(token_id):
            return b""  # <s>, </s>, <unk>: no text of their own
        return processor.id_to_piece(token_id).replace(SP_UNDERLINE, " ").encode("utf-8")

    return token_bytes


def from_sentencepiece(name: str, processor: Any) -> Segmenter:
    """Wrap a SentencePieceProcessor."""
    return Segmenter(name, processor.get_piece_size(), processor.encode_as_ids, sentencepiece_bytes(processor))


def train_sentencepiece(lines: Sequence[str], vocab_size: int, model_type: str, *,
                        character_coverage: float = 0.9995, byte_fallback: bool = True,
                        normalization: str = "identity", seed: int = 0) -> Any:
    """Train a SentencePiece model on `lines`, in memory, and return its SentencePieceProcessor.

    Settings chosen so the model is comparable with byte-level BPE on the same text:
    - `normalization="identity"`: the default nmt_nfkc would turn "，" into "," and the decoded text would
      differ from the input (see metrics.nfkc_changes);
    - no dummy "▁" prefix and no whitespace squeezing, so decode(encode(line)) == line;
    - `byte_fallback=True`: characters outside `character_coverage` become UTF-8 byte pieces, not <unk>;
    - one thread and a fixed random seed: the same lines always give the same model.
    `vocab_size` counts everything: <unk>, <s>, </s>, the 256 byte pieces and the learned pieces.
    """
    import sentencepiece as spm

    if model_type not in ("bpe", "unigram"):
        raise ValueError(f"model_type must be 'bpe' or 'unigram', got {model_type!r}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 300:
        raise ValueError(f"vocab_size must be an int >= 300 (room for 256 byte pieces), got {vocab_size!r}")
    sentences = [line for line in metrics.check_lines(lines) if line]
    model = io.BytesIO()
    spm.set_random_generator_seed(seed)
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_writer=model, vocab_size=vocab_size, model_type=model_type,
        character_coverage=character_coverage, byte_fallback=byte_fallback,
        normalization_rule_name=normalization, add_dummy_prefix=False, remove_extra_whitespaces=False,
        max_sentence_length=1 << 16, num_threads=1, minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def show_token(token: bytes) -> str:
    """A token for display: its text (spaces as ␣, newlines as \\n) when its bytes are valid UTF-8, else the
    bytes as \\xNN escapes."""
    if not isinstance(token, bytes):
        raise TypeError(f"token must be bytes, got {type(token).__name__}")
    try:
        return visible(token.decode("utf-8")).replace("\n", "\\n")
    except UnicodeDecodeError:
        return "".join(f"\\x{b:02x}" for b in token)


def token_table(segmenter: Segmenter, text: str) -> list[tuple[int, str, str, str]]:
    """One row per token of `text`: (id, bytes in hex, shown as text, kind from metrics.token_kind)."""
    return [(i, b.hex(" "), show_token(b), metrics.token_kind(b))
            for i, b in zip(segmenter.encode(text), segmenter.tokens(text))]


def segment(text: str, segmenters: Sequence[Segmenter]) -> list[tuple[str, int, str]]:
    """(name, token count, the tokens joined by " | ") for each segmenter: the side-by-side view."""
    metrics.check_str(text)
    return [(s.name, len(toks), " | ".join(map(show_token, toks))) for s in segmenters
            for toks in [s.tokens(text)]]


def vocab_kinds(segmenter: Segmenter) -> dict[str, int]:
    """How many vocabulary entries are partial bytes, single characters or several characters.

    Ids must run from 0 to vocab_size - 1 (true for our Tokenizer and for SentencePiece, not for cl100k).
    """
    tokens = (segmenter.token_bytes(i) for i in range(segmenter.vocab_size))
    kinds = Counter(metrics.token_kind(t) for t in tokens if t)  # control pieces (<s>, <unk>) have no bytes
    return {kind: kinds[kind] for kind in ("partial", "char", "multi")}


def top_multichar_tokens(segmenter: Segmenter, lines: Sequence[str], k: int = 15,
                         must_contain_han: bool = True) -> list[tuple[str, int]]:
    """The k tokens of two or more characters used most often when `lines` are encoded, with their counts.

    What a tokenizer "learned" is best seen in use: many vocabulary entries are rare, the frequent ones
    are what the text turns into. Ties are broken by the token text, so the list is deterministic.
    """
    counts: Counter[bytes] = Counter()
    for line in metrics.check_lines(lines):
        counts.update(t for t in segmenter.tokens(line) if metrics.token_kind(t) == "multi")
    rows = [(t.decode("utf-8"), n) for t, n in counts.items()]
    if must_contain_han:
        rows = [(t, n) for t, n in rows if any(metrics.is_han(ch) for ch in t)]
    return sorted(rows, key=lambda row: (-row[1], row[0]))[:k]


@dataclass(frozen=True)
class Result:
    """One tokenizer measured on one evaluation set."""

    tokenizer: str
    vocab_size: int
    eval_set: str
    compression: metrics.Compression
    cut_chars: int  # characters spread over more than one token
    chars: int
    lossless: bool  # the tokens' bytes give every line back exactly

    @property
    def cut_share(self) -> float:
        return self.cut_chars / self.chars


def measure(segmenter: Segmenter, eval_set: str, lines: Sequence[str]) -> Result:
    """Compression, cut characters and a round trip for one segmenter on `lines` (each line encoded alone)."""
    lines = metrics.check_lines(lines)
    cut = chars = 0
    lossless = True
    for line in lines:
        toks = segmenter.tokens(line)
        lossless &= b"".join(toks) == line.encode("utf-8")
        if lossless:
            c, n = metrics.cut_characters(toks)
            cut, chars = cut + c, chars + n
    return Result(segmenter.name, segmenter.vocab_size, eval_set, metrics.compression(segmenter.encode, lines),
                  cut, chars, lossless)


def result_rows(results: Sequence[Result]) -> list[tuple]:
    """Table rows: tokenizer, vocabulary size, evaluation set, tokens, chars/token, bytes/token, cut chars."""
    return [(r.tokenizer, r.vocab_size, r.eval_set, r.compression.tokens, f"{r.compression.chars_per_token:.3f}",
             f"{r.compression.bytes_per_token:.3f}", f"{100 * r.cut_share:.2f}%" if r.lossless else "—",
             "是" if r.lossless else "否") for r in results]
