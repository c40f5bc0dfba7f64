"""Tokenizers side by side: real ones wrapped as a `measure.Segmenter`, and what each makes of text.

Chapter 01 puts D2L's character and word vocabularies next to byte-level BPE; chapter 03 puts our
BPE next to SentencePiece and cl100k on Chinese. The `from_*` functions wrap each as a `Segmenter`;
`segment`, `segmentations`, `pretokenizations` and `token_table` show the tokens themselves;
`train_sentencepiece` trains SentencePiece in memory and deterministically.
"""

from __future__ import annotations

import io
from typing import Any, Callable, Sequence

from tutorial_lib._check_data import check_has, check_number, check_str_list
from tutorial_lib._checks import (check_choice, check_int, check_sequence, check_str, check_type,
                                  check_utf8)
from tutorial_lib.bpe.pretokenize import PATTERNS, pretokenize
from tutorial_lib.text.d2l import GRANULARITIES, UNK, Vocab, clean_line
from tutorial_lib.text.measure import Segmenter, token_kind
from tutorial_lib.unigram.model import SP_UNDERLINE

# GPT-2's pattern with one change: every Han character is a pre-token of its own, and letter runs
# exclude Han (`[^\P{L}\p{Han}]` = a letter that is not Han). Merges can then build characters but
# never words: the "character-level start" of Chinese BERT, done with bytes.
HAN_SPLIT_PATTERN = (r"""'(?:[sdmt]|ll|ve|re)|\p{Han}| ?[^\P{L}\p{Han}]+| ?\p{N}+"""
                     r"""| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def from_tokenizer(name: str, tokenizer: Any) -> Segmenter:
    """Wrap a `tokenizer.Tokenizer` (ordinary text: special tokens are not looked for)."""
    return Segmenter(check_str(name, "name"), tokenizer.vocab_size, tokenizer.encode_ordinary,
                     tokenizer.token_bytes)


def from_tiktoken(name: str, encoding: Any) -> Segmenter:
    """Wrap a tiktoken Encoding such as cl100k_base."""
    return Segmenter(check_str(name, "name"), encoding.n_vocab, encoding.encode_ordinary,
                     encoding.decode_single_token_bytes)


def from_vocab(name: str, vocab: Vocab, granularity: str = "word") -> Segmenter:
    """Wrap a D2L `Vocab` of words (split on whitespace, joined with one space) or characters;
    `measure` counts the lines whose spacing, case or unknown words it cannot give back."""
    check_type(vocab, "vocab", Vocab, "a Vocab")
    check_choice(granularity, "granularity", GRANULARITIES)
    split: Callable[[str], list[str]] = str.split if granularity == "word" else list
    sep = " " if granularity == "word" else ""
    return Segmenter(check_str(name, "name"), len(vocab), lambda line: vocab[split(line)],
                     lambda i: vocab.to_tokens(i).encode("utf-8"),
                     lambda ids: sep.join(vocab.to_tokens(ids)), vocab.unk)


def sentencepiece_bytes(processor: Any) -> Callable[[int], bytes]:
    """id -> bytes for a SentencePiece model: "▁" is a space, a byte-fallback piece "<0xE4>" is
    that byte."""

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
                     sentencepiece_bytes(processor), unk_id=processor.unk_id(),
                     is_byte_fallback=processor.is_byte)


def from_unigram(name: str, model: Any) -> Segmenter:
    """Wrap our trained Unigram model (`unigram_train.UnigramResult`): its pieces get ids in the
    model's order, then its 256 byte-fallback pieces ("<0xE4>"), id = len(pieces) + the byte."""
    check_has(model, "model", ("log_probs", "encode", "decode"), "a unigram_train.UnigramResult")
    pieces = list(model.log_probs)
    ids = {piece: i for i, piece in enumerate(pieces)}
    n = len(pieces)

    def piece_id(piece: str) -> int:
        return ids[piece] if piece in ids else n + int(piece[1:-1], 16)  # a byte piece <0xNN>

    def token_bytes(token_id: int) -> bytes:
        if token_id >= n:
            return bytes([token_id - n])
        return pieces[token_id].replace(SP_UNDERLINE, " ").encode("utf-8")

    return Segmenter(check_str(name, "name"), n + 256,
                     lambda text: [piece_id(p) for p in model.encode(text)], token_bytes,
                     lambda token_ids: model.decode([pieces[i] if i < n else f"<0x{i - n:02X}>"
                                                     for i in token_ids]),
                     is_byte_fallback=lambda token_id: token_id >= n)


def train_sentencepiece(lines: Sequence[str], vocab_size: int, model_type: str, *,
                        character_coverage: float = 0.9995, byte_fallback: bool = True,
                        normalization: str = "identity", seed: int = 0) -> Any:
    """Train a SentencePiece model on `lines`, in memory, and return its SentencePieceProcessor.

    Settings chosen so the model is comparable with byte-level BPE on the same text: identity
    normalization (nmt_nfkc would turn "，" into ","), no dummy "▁" prefix and no whitespace
    squeezing (decode(encode(line)) == line), byte fallback rather than <unk>, one thread and a
    fixed seed. `vocab_size` counts <unk>, <s>, </s>, the 256 byte pieces and the learned pieces.
    """
    import sentencepiece as spm

    check_choice(model_type, "model_type", ("bpe", "unigram"))
    check_int(vocab_size, "vocab_size", low=300)  # room for <unk>, <s>, </s> and 256 byte pieces
    check_number(character_coverage, "character_coverage", low=0, high=1, low_open=True)
    check_int(seed, "seed", low=0, high=2**32 - 1)
    sentences = [check_utf8(line, f"lines[{i}]")
                 for i, line in enumerate(check_str_list(lines, "lines", non_empty=True)) if line]
    model = io.BytesIO()
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences), model_writer=model, vocab_size=vocab_size,
            model_type=model_type, character_coverage=character_coverage,
            byte_fallback=byte_fallback, normalization_rule_name=normalization,
            add_dummy_prefix=False, remove_extra_whitespaces=False, max_sentence_length=1 << 16,
            num_threads=1, minloglevel=2,
        )
    except RuntimeError as e:  # e.g. a vocab_size the text cannot fill: SentencePiece says why
        raise ValueError(f"SentencePiece cannot train with these settings: {e}") from None
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def token_table(segmenter: Segmenter, text: str) -> list[tuple[int, bytes, str]]:
    """One row per token of `text`: (id, its bytes, its kind from measure.token_kind)."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    ids = segmenter.encode(check_str(text, "text", utf8=True))
    return [(i, b, token_kind(b)) for i, b in zip(ids, map(segmenter.token_bytes, ids))]


def segment(text: str, segmenters: Sequence[Segmenter]) -> list[tuple[str, list[bytes], list[int]]]:
    """(name, tokens as bytes, ids) of `text` for each segmenter: the side-by-side view
    (display.segmentation_table)."""
    check_str(text, "text", utf8=True)
    return [(s.name, s.tokens(text), s.encode(text)) for s in _segmenters(segmenters)]


def segmentations(text: str, word_vocab: Vocab, segmenters: Sequence[Segmenter]
                  ) -> list[tuple[str, list[bytes | str], list[int] | None]]:
    """What each granularity makes of one sentence: (name, tokens, ids or None) for characters and
    words after D2L cleaning (unknown words as `<unk>`), then for each segmenter on the raw text."""
    check_str(text, "text", utf8=True)
    check_type(word_vocab, "word_vocab", Vocab, "a Vocab")
    cleaned = clean_line(text)
    words = [w if w in word_vocab else UNK for w in cleaned.split()]
    return [("字符（D2L 清洗后）", list(cleaned), None),
            ("词（D2L 清洗后）", words, word_vocab[words]), *segment(text, segmenters)]


def pretokenizations(text: str) -> list[tuple[str, list[bytes], None]]:
    """(pattern name, pre-tokens as bytes, None) of `text` for each split pattern of PATTERNS:
    pre-tokens have no ids yet, so they fit in one table with `segment`'s rows."""
    check_str(text, "text", utf8=True)
    return [(name, [p.encode("utf-8") for p in pretokenize(text, name)], None) for name in PATTERNS]


def _segmenters(segmenters: object) -> list[Segmenter]:
    items = check_sequence(segmenters, "segmenters", "a list of Segmenter")
    for i, s in enumerate(items):
        check_type(s, f"segmenters[{i}]", Segmenter,
                   "a Segmenter (from_tokenizer, from_tiktoken, ...)")
    return items


# --- Hugging Face training time (chapter 06 puts our trainer's time beside it) -------------------

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
    """Seconds Hugging Face `tokenizers` takes to train byte-level BPE on `texts` in `threads`
    threads (the training only, not starting the child process or importing the library)."""
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
