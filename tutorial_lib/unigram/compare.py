"""Our Unigram trainer beside SentencePiece's: the same lines, the same vocabulary size, measured.

Both train on the first 90% of a corpus's lines and are read on the last 10%. SentencePiece runs
with `sp_settings.BASE_OPTIONS` changed where our trainer differs: character_coverage=1.0 (we keep
every character) and identity normalization. Its vocabulary holds three extra ids (<unk>, <s>,
</s>), so ours is trained to vocab_size - 3 pieces.

Compared on the held-out lines: the share of pieces both have; the share of lines both segment
alike, and cut F1 (agreement of the cut positions: a line where one cut moves is mostly agreed
on); bytes per token; log-likelihood per character (all segmentations summed, what EM maximises).
SentencePiece's scores come from a digamma update and do not sum to one (`sp_mass`), which favours
our plain maximum likelihood a little.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from tutorial_lib import data
from tutorial_lib._check_data import check_number
from tutorial_lib._checks import check_int, check_str
from tutorial_lib.unigram import byte_fallback, model as unigram
from tutorial_lib.unigram import sp_settings
from tutorial_lib.unigram import train as unigram_train
from tutorial_lib.unigram.model import SP_UNDERLINE

SENTENCEPIECE_OPTIONS = {"model_type": "unigram", "character_coverage": 1.0,
                         "normalization_rule_name": "identity"}
EXTRA_IDS = 3  # <unk>, <s>, </s>: ids SentencePiece's vocabulary holds beside the normal pieces


@dataclass(frozen=True)
class Comparison:
    """Ours and SentencePiece's Unigram model on one corpus; pairs are (ours, SentencePiece)."""

    corpus: str
    vocab_size: int
    train_lines: int
    held_out_lines: int
    seconds: tuple[float, float]
    overlap: float
    same_lines: float
    cut_f1: float
    bytes_per_token: tuple[float, float]
    log_likelihood_per_char: tuple[float, float]
    sp_mass: float
    ours: unigram_train.UnigramResult
    sentencepiece: sp_settings.Model


def split_lines(name: str, train_share: float = 0.9) -> tuple[list[str], list[str]]:
    """The non-blank lines of a bundled corpus: the first `train_share` to train on, the rest to
    read the models on."""
    check_number(train_share, "train_share", low=0, high=1, low_open=True, high_open=True)
    lines = [line for line in data.load_text(check_str(name, "name")).splitlines() if line.strip()]
    cut = int(len(lines) * train_share)
    if not 0 < cut < len(lines):
        raise ValueError(f"train_share {train_share} leaves no lines on one side of {name!r}")
    return lines[:cut], lines[cut:]


def sentencepiece_table(model: sp_settings.Model) -> dict[str, float]:
    """SentencePiece's normal pieces and scores, "▁" kept as our trainer writes it."""
    return {piece.replace(" ", SP_UNDERLINE): score
            for piece, score in unigram.sentencepiece_log_probs(model.processor).items()}


def cuts(pieces: list[str]) -> set[int]:
    """The positions inside a line where a segmentation cuts it (character offsets)."""
    out, position = set(), 0
    for piece in pieces[:-1]:
        position += len(piece)
        out.add(position)
    return out


def _timed(train):
    start = time.perf_counter()
    result = train()
    return result, time.perf_counter() - start


def compare(name: str, vocab_size: int = 4000) -> Comparison:
    """Train both on corpus `name` at `vocab_size` ids and measure them on its held-out lines."""
    vocab_size = check_int(vocab_size, "vocab_size", low=EXTRA_IDS + 1)
    train, held_out = split_lines(name)
    text = "\n".join(train)
    ours, t_ours = _timed(lambda: unigram_train.train_unigram(text, vocab_size - EXTRA_IDS))
    options = {**SENTENCEPIECE_OPTIONS, "vocab_size": vocab_size}
    sp, t_sp = _timed(lambda: sp_settings.train(train, options, name=f"sentencepiece {name}",
                                                shipped=False))  # timed: trained, never loaded
    table = sentencepiece_table(sp)
    same = agreed = cut_ours = cut_sp = tokens_ours = tokens_sp = 0
    for line in held_out:
        a, b = ours.encode(line), sp.processor.encode(line, out_type=str)
        same += a == b
        ca, cb = cuts(a), cuts(b)
        agreed, cut_ours, cut_sp = agreed + len(ca & cb), cut_ours + len(ca), cut_sp + len(cb)
        tokens_ours, tokens_sp = tokens_ours + len(a), tokens_sp + len(b)
    text_bytes = sum(len(line.encode()) for line in held_out)
    held_text = "\n".join(held_out)
    unknown = min(byte_fallback.table_bounds(t)[0] for t in (ours.log_probs, table))
    (ll_ours, chars, _), (ll_sp, _, _) = (
        unigram_train.corpus_log_likelihood(held_text, t, unknown) for t in (ours.log_probs, table))
    return Comparison(
        corpus=name, vocab_size=vocab_size, train_lines=len(train), held_out_lines=len(held_out),
        seconds=(t_ours, t_sp), overlap=len(set(ours.log_probs) & set(table)) / len(table),
        same_lines=same / len(held_out),
        cut_f1=2 * agreed / (cut_ours + cut_sp) if cut_ours + cut_sp else 1.0,
        bytes_per_token=(text_bytes / tokens_ours, text_bytes / tokens_sp),
        log_likelihood_per_char=(ll_ours / chars, ll_sp / chars),
        sp_mass=math.fsum(math.exp(v) for v in table.values()), ours=ours, sentencepiece=sp)
