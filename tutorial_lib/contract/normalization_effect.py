"""What a normalization form does to a tokenizer: compression, and the ids of one without it.

Chapter 13 trains "the same tokenizer with and without NFKC" (`trained_pair`: same text, vocabulary
size, pattern and special tokens; only the form differs) and measures, on each evaluation set
(`form_effect`):

- bytes per token of each, on the lines as given (`measure.compression`): the tokenizer with NFKC
  sees "，" as ",", so its vocabulary is spent on fewer distinct characters;
- the pitfall both ways: how many lines get different ids from the tokenizer trained without the
  form when their text was normalized before it (a pipeline that normalizes on one side only), and
  how many tokens per line that costs or saves; and how many tokens per line the tokenizer trained
  with the form needs when it is served without it (its merges never saw "，", so the raw
  full-width comma falls apart into its three bytes).

What NFKC changes in the text itself, character by character, is `characters.change_summary`.
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
    tokens_per_line_with: float  # the tokenizer with the form (it normalizes), on the lines
    tokens_per_line_with_served_raw: float  # its vocabulary and merges, but the form left out


def form_effect(without: Tokenizer, with_form: Tokenizer, eval_sets: Mapping[str, Sequence[str]]
                ) -> list[FormEffect]:
    """A `FormEffect` per evaluation set (name -> lines; empty lines are skipped)."""
    form = with_form.normalization
    if without.normalization != "none" or form == "none":
        raise ValueError(f"form_effect needs a tokenizer without normalization and one with it, "
                         f"got {without.normalization!r} and {form!r}")
    served_raw = with_form.replace(normalization="none")  # the same tokenizer, its form forgotten
    rows = []
    for name, lines in eval_sets.items():
        lines = [line for line in check_str_list(lines, f"eval_sets[{name!r}]") if line]
        raw = [without.encode_ordinary(line) for line in lines]
        normalized = [without.encode_ordinary(normalize(line, form)) for line in lines]
        changed = sum(a != b for a, b in zip(raw, normalized))
        with_tokens = compression(with_form.encode_ordinary, lines)
        rows.append(FormEffect(
            corpus=name, lines=len(lines),
            bytes_per_token_without=compression(without.encode_ordinary, lines).bytes_per_token,
            bytes_per_token_with=with_tokens.bytes_per_token,
            changed_lines=changed / len(lines),
            tokens_per_line=sum(map(len, raw)) / len(lines),
            tokens_per_line_normalized=sum(map(len, normalized)) / len(lines),
            tokens_per_line_with=with_tokens.tokens / len(lines),
            tokens_per_line_with_served_raw=_tokens_per_line(served_raw, lines)))
    return rows


def _tokens_per_line(tokenizer: Tokenizer, lines: list[str]) -> float:
    return sum(len(tokenizer.encode_ordinary(line)) for line in lines) / len(lines)
