"""What a normalization form does to a tokenizer: compression, and the ids of one without it.

Chapter 13 trains "the same tokenizer with and without NFKC" (`trained_pair`: only the form
differs) and measures, on each evaluation set (`form_effect`), the bytes per token of each (with
NFKC "，" is ",", so the vocabulary is spent on fewer distinct characters) and the pitfall of a
pipeline that normalizes on one side only: how many lines get other ids from the tokenizer trained
without the form when their text is normalized first, and how many tokens per line that costs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tutorial_lib._check_data import check_str_list
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.contract.normalize import check_form, normalize
from tutorial_lib.text.measure import compression


def trained_pair(train_texts: Sequence[str], vocab_size: int, pattern: str = "gpt4",
                 form: str = "NFKC", special_tokens: Iterable[str] = ()
                 ) -> tuple[Tokenizer, Tokenizer]:
    """(without, with): two tokenizers trained on `train_texts` that differ only in `form`."""
    check_form(form)
    without = train_tokenizer(train_texts, vocab_size, special_tokens, pattern)
    with_form = train_tokenizer(train_texts, vocab_size, special_tokens, pattern,
                                normalization=form)
    return without, with_form


@dataclass(frozen=True)
class FormEffect:
    """One evaluation set, measured with the two tokenizers of `trained_pair`."""

    corpus: str
    lines: int
    bytes_per_token_without: float  # the tokenizer without the form, on the lines as given
    bytes_per_token_with: float  # the tokenizer with it (it normalizes), same lines and bytes
    changed_lines: float  # share of lines whose ids (without) change if normalized first
    tokens_per_line: float  # the tokenizer without the form, on the lines as given
    tokens_per_line_normalized: float  # the same tokenizer, on the normalized lines


def form_effect(without: Tokenizer, with_form: Tokenizer, eval_sets: Mapping[str, Sequence[str]]
                ) -> list[FormEffect]:
    """A `FormEffect` per evaluation set (name -> lines; empty lines are skipped)."""
    form = with_form.normalization
    if without.normalization != "none" or form == "none":
        raise ValueError(f"form_effect needs a tokenizer without normalization and one with it, "
                         f"got {without.normalization!r} and {form!r}")
    rows = []
    for name, lines in eval_sets.items():
        lines = [line for line in check_str_list(lines, f"eval_sets[{name!r}]") if line]
        raw = [without.encode_ordinary(line) for line in lines]
        normalized = [without.encode_ordinary(normalize(line, form)) for line in lines]
        changed = sum(a != b for a, b in zip(raw, normalized))
        rows.append(FormEffect(
            corpus=name, lines=len(lines),
            bytes_per_token_without=compression(without.encode_ordinary, lines).bytes_per_token,
            bytes_per_token_with=compression(with_form.encode_ordinary, lines).bytes_per_token,
            changed_lines=changed / len(lines),
            tokens_per_line=sum(map(len, raw)) / len(lines),
            tokens_per_line_normalized=sum(map(len, normalized)) / len(lines)))
    return rows
