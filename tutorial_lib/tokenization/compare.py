"""Tokenizers side by side: one small interface, one way to measure them on the same lines.

Chapter 01 puts D2L's character and word vocabularies next to byte-level BPE; chapter 03 puts our BPE next
to SentencePiece and GPT-4's cl100k on Chinese. Each is wrapped as a `Segmenter` (ids, and the bytes or text
of each id) and measured by `measure`: tokens per word, unknown ids, compression in characters and bytes,
characters cut across tokens, and whether every line comes back exactly. `train_sentencepiece` trains
SentencePiece in memory (nothing is written to disk) and deterministically.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tutorial_lib._checks import (check_choice, check_int, check_number, check_sequence, check_str,
                                  check_str_list, check_type, check_utf8)
from tutorial_lib.display import show_token
from tutorial_lib.tokenization import metrics
from tutorial_lib.tokenization.d2l import GRANULARITIES, UNK, Vocab, clean_line

# GPT-2's pattern with one change: every Han character is a pre-token of its own, and letter runs exclude Han
# (`[^\P{L}\p{Han}]` = a letter that is not Han). Merges can then build characters but never words: the
# "character-level start" of Chinese BERT, done with bytes.
HAN_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)|\p{Han}| ?[^\P{L}\p{Han}]+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

SP_UNDERLINE = "\u2581"  # "▁", SentencePiece's visible stand-in for a space


@dataclass(frozen=True)
class Segmenter:
    """A tokenizer reduced to what a comparison needs.

    `token_bytes(id)` is the text of one token as bytes; `decode(ids)` gives the text back (by default the
    tokens' bytes joined, as for byte-level BPE; a word vocabulary puts spaces back instead); `unk_id` is the
    id of `<unk>`, or None for a tokenizer that never loses a character.
    """

    name: str
    vocab_size: int
    encode: Callable[[str], list[int]]
    token_bytes: Callable[[int], bytes]
    decode: Callable[[list[int]], str] | None = None
    unk_id: int | None = None

    def tokens(self, text: str) -> list[bytes]:
        """The bytes of each token of `text`, in order."""
        return [self.token_bytes(i) for i in self.encode(text)]

    def text_of(self, ids: list[int]) -> str:
        """The text `ids` stand for: `decode` if given, else the tokens' bytes joined and decoded."""
        if self.decode is not None:
            return self.decode(ids)
        return b"".join(map(self.token_bytes, ids)).decode("utf-8", errors="replace")


def from_tokenizer(name: str, tokenizer: Any) -> Segmenter:
    """Wrap a `tokenization.tokenizer.Tokenizer` (ordinary text: special tokens are not looked for)."""
    return Segmenter(check_str(name, "name"), tokenizer.vocab_size, tokenizer.encode_ordinary, tokenizer.token_bytes)


def from_tiktoken(name: str, encoding: Any) -> Segmenter:
    """Wrap a tiktoken Encoding such as cl100k_base."""
    return Segmenter(check_str(name, "name"), encoding.n_vocab, encoding.encode_ordinary,
                     encoding.decode_single_token_bytes)


def from_vocab(name: str, vocab: Vocab, granularity: str = "word") -> Segmenter:
    """Wrap a D2L `Vocab` of words (split on whitespace, joined with one space) or characters.

    A word vocabulary cannot give back the spacing, case or punctuation it never stored, and an unknown word
    comes back as `<unk>`: `measure` counts those lines as not restored.
    """
    check_type(vocab, "vocab", Vocab, "a Vocab")
    check_choice(granularity, "granularity", GRANULARITIES)
    split: Callable[[str], list[str]] = str.split if granularity == "word" else list
    sep = " " if granularity == "word" else ""
    return Segmenter(check_str(name, "name"), len(vocab), lambda line: vocab[split(line)],
                     lambda i: vocab.to_tokens(i).encode("utf-8"), lambda ids: sep.join(vocab.to_tokens(ids)),
                     vocab.unk)


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
    return Segmenter(check_str(name, "name"), processor.get_piece_size(), processor.encode_as_ids,
                     sentencepiece_bytes(processor), unk_id=processor.unk_id())


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

    check_choice(model_type, "model_type", ("bpe", "unigram"))
    check_int(vocab_size, "vocab_size", low=300)  # room for <unk>, <s>, </s> and the 256 byte pieces
    check_number(character_coverage, "character_coverage", low=0, high=1, low_open=True)
    check_int(seed, "seed", low=0, high=2**32 - 1)
    sentences = [line for line in check_str_list(lines, "lines", non_empty=True) if line]
    for i, line in enumerate(sentences):
        check_utf8(line, f"lines[{i}]")
    model = io.BytesIO()
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences), model_writer=model, vocab_size=vocab_size, model_type=model_type,
            character_coverage=character_coverage, byte_fallback=byte_fallback,
            normalization_rule_name=normalization, add_dummy_prefix=False, remove_extra_whitespaces=False,
            max_sentence_length=1 << 16, num_threads=1, minloglevel=2,
        )
    except RuntimeError as e:  # e.g. a vocab_size the text cannot fill: SentencePiece says why in its message
        raise ValueError(f"SentencePiece cannot train with these settings: {e}") from None
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def token_table(segmenter: Segmenter, text: str) -> list[tuple[int, str, str, str]]:
    """One row per token of `text`: (id, bytes in hex, shown as text, kind from metrics.token_kind)."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    ids = segmenter.encode(check_str(text, "text", utf8=True))
    return [(i, b.hex(" "), show_token(b), metrics.token_kind(b)) for i, b in zip(ids, map(segmenter.token_bytes, ids))]


def segment(text: str, segmenters: Sequence[Segmenter]) -> list[tuple[str, list[bytes], list[int]]]:
    """(name, tokens as bytes, ids) of `text` for each segmenter: the side-by-side view (display.segmentation_table)."""
    check_str(text, "text", utf8=True)
    return [(s.name, s.tokens(text), s.encode(text)) for s in _segmenters(segmenters)]


def segmentations(text: str, word_vocab: Vocab, segmenters: Sequence[Segmenter]
                  ) -> list[tuple[str, list[bytes | str], list[int] | None]]:
    """What each granularity makes of one sentence: (name, tokens, ids or None) for characters and words after
    D2L cleaning (unknown words as `<unk>`), then for each segmenter on the raw text."""
    check_str(text, "text", utf8=True)
    check_type(word_vocab, "word_vocab", Vocab, "a Vocab")
    cleaned = clean_line(text)
    words = [w if w in word_vocab else UNK for w in cleaned.split()]
    return [("字符（D2L 清洗后）", list(cleaned), None), ("词（D2L 清洗后）", words, word_vocab[words]),
            *segment(text, segmenters)]


def _segmenters(segmenters: object) -> list[Segmenter]:
    items = check_sequence(segmenters, "segmenters", "a list of Segmenter")
    for i, s in enumerate(items):
        check_type(s, f"segmenters[{i}]", Segmenter, "a Segmenter (from_tokenizer, from_tiktoken, ...)")
    return items


def vocab_kinds(segmenter: Segmenter) -> dict[str, int]:
    """How many vocabulary entries are partial bytes, single characters or several characters.

    Ids that decode to nothing (SentencePiece's <s>, <unk>) and ids a vocabulary leaves unused (cl100k has a
    few gaps) are not counted.
    """
    kinds: Counter[str] = Counter()
    for i in range(segmenter.vocab_size):
        try:
            token = segmenter.token_bytes(i)
        except (KeyError, ValueError):
            continue
        if token:
            kinds[metrics.token_kind(token)] += 1
    return {kind: kinds[kind] for kind in ("partial", "char", "multi")}


def top_multichar_tokens(segmenter: Segmenter, lines: Sequence[str], k: int = 15,
                         must_contain_han: bool = True) -> list[tuple[str, int]]:
    """The k tokens of two or more characters used most often when `lines` are encoded, with their counts.

    What a tokenizer "learned" is best seen in use: many vocabulary entries are rare, the frequent ones
    are what the text turns into. Ties are broken by the token text, so the list is deterministic.
    """
    counts: Counter[bytes] = Counter()
    for line in check_str_list(lines, "lines"):
        counts.update(t for t in segmenter.tokens(line) if metrics.token_kind(t) == "multi")
    rows = [(t.decode("utf-8"), n) for t, n in counts.items()]
    if must_contain_han:
        rows = [(t, n) for t, n in rows if any(metrics.is_han(ch) for ch in t)]
    return sorted(rows, key=lambda row: (-row[1], row[0]))[:check_int(k, "k", low=1)]


@dataclass(frozen=True)
class Measurement(metrics.Compression):
    """One tokenizer measured on one set of lines, each line encoded on its own.

    A `metrics.Compression` (chars, bytes, tokens and their ratios) plus what a comparison also asks.
    """

    name: str
    vocab_size: int
    eval_set: str
    lines: int
    words: int  # whitespace-separated words, to put tokens on a per-word scale
    unknown: int  # tokens that are the unknown id
    restored_lines: int  # lines that decode(encode(line)) gives back exactly
    cut_chars: int | None  # characters spread over several tokens; None unless the tokens' bytes rebuild every line

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words

    @property
    def oov_rate(self) -> float:
        return self.unknown / self.tokens

    @property
    def lossless(self) -> bool:
        return self.restored_lines == self.lines


def measure(segmenter: Segmenter, lines: Sequence[str], eval_set: str = "") -> Measurement:
    """Encode each line, count tokens and unknown ids, decode it back, and count the characters cut in two.

    Cut characters are counted only when the tokens' bytes rebuild every line: where a line is lost (a word
    vocabulary dropping spaces, `<unk>`), "which token holds which byte" has no answer, so the result is None
    rather than a count over the lines that happened to survive.
    """
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    lines = check_str_list(lines, "lines", non_empty=True)
    check_str(eval_set, "eval_set")
    tokens = words = unknown = restored = cut = chars = 0
    rebuilt = True
    for i, line in enumerate(lines):
        ids = check_sequence(segmenter.encode(check_utf8(line, f"lines[{i}]")), "encode(line)", "a list of ids")
        tokens += len(ids)
        words += len(line.split())
        unknown += 0 if segmenter.unk_id is None else ids.count(segmenter.unk_id)
        restored += segmenter.text_of(ids) == line
        pieces = [segmenter.token_bytes(t) for t in ids]
        rebuilt = rebuilt and b"".join(pieces) == line.encode("utf-8")
        if rebuilt:
            cut += metrics.cut_characters(pieces)[0]
        chars += len(line)
    if tokens == 0:
        raise ValueError(f"{segmenter.name} produced no tokens for these lines")
    size = sum(len(line.encode("utf-8")) for line in lines)
    return Measurement(chars=chars, bytes=size, tokens=tokens, name=segmenter.name, vocab_size=segmenter.vocab_size,
                       eval_set=eval_set, lines=len(lines), words=words, unknown=unknown, restored_lines=restored,
                       cut_chars=cut if rebuilt else None)


# Columns a notebook can pick for its table: header -> how a Measurement fills it.
COLUMNS: dict[str, Callable[[Measurement], object]] = {
    "分词方式": lambda m: m.name,
    "词表大小": lambda m: m.vocab_size,
    "测试文本": lambda m: m.eval_set,
    "token 数": lambda m: m.tokens,
    "token/词": lambda m: f"{m.tokens_per_word:.2f}",
    "OOV 率": lambda m: f"{100 * m.oov_rate:.2f}%",
    "字符/token": lambda m: f"{m.chars_per_token:.3f}",
    "字节/token": lambda m: f"{m.bytes_per_token:.3f}",
    "被切开的字": lambda m: "—" if m.cut_chars is None else f"{100 * m.cut_chars / m.chars:.2f}%",
    "原样还原的行": lambda m: f"{m.restored_lines}/{m.lines}",
}


def measurement_table(measurements: Sequence[Measurement], columns: Sequence[str]) -> tuple[list[str], list[tuple]]:
    """(header, rows) for `display.table`: one row per measurement, the chosen `COLUMNS` in the given order."""
    columns = check_str_list(columns, "columns")
    for column in columns:
        check_choice(column, "columns item", COLUMNS)
    return columns, [tuple(COLUMNS[c](m) for c in columns) for m in check_sequence(measurements, "measurements")]


# -------------------------------------------------------------------------------------------------
# Hugging Face training time (chapter 06 puts our trainer's time beside it)

# Hugging Face's BpeTrainer with GPT-2's byte-level pre-tokenizer (same regex, all 256 bytes in
# the alphabet), run in a child process: the Rust library reads RAYON_NUM_THREADS once, when it
# first starts its threads.
_HF_CHILD = """
import json, sys, time
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
texts, vocab_size = json.load(sys.stdin)
tokenizer = Tokenizer(models.BPE())
tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
alphabet = pre_tokenizers.ByteLevel.alphabet()
trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False)
start = time.perf_counter()
tokenizer.train_from_iterator(texts, trainer)
print(json.dumps([time.perf_counter() - start, tokenizer.get_vocab_size()]))
"""


def hf_train_seconds(texts: list[str], vocab_size: int, threads: int) -> float:
    """How many seconds Hugging Face `tokenizers` takes to train byte-level BPE on `texts`.

    It runs in `threads` threads. Only the training is timed, not starting the child process or
    importing the library.
    """
    import json
    import os
    import subprocess
    import sys

    texts = [check_type(text, f"texts[{i}]", str, "a str") for i, text in enumerate(texts)]
    vocab_size = check_int(vocab_size, "vocab_size", low=256)
    threads = check_int(threads, "threads", low=1)
    child = subprocess.run([sys.executable, "-c", _HF_CHILD], input=json.dumps([texts, vocab_size]),
                           capture_output=True, text=True, check=True,
                           env={**os.environ, "RAYON_NUM_THREADS": str(threads)})
    seconds, size = json.loads(child.stdout)
    if size != vocab_size:
        raise ValueError(f"texts are too small for vocab_size={vocab_size}: Hugging Face stopped "
                         f"at {size}")
    return seconds
