"""Chapter 01: reference solutions, and the typical wrong answer each checker must reject."""

import re
from collections import Counter


def clean_line(line: str) -> str:
    return re.sub(r"[^A-Za-z]+", " ", line).strip().lower()


def build_vocab(tokens: list[str], min_freq: int) -> list[str]:
    counts = Counter(tokens)  # remembers first appearance; the stable sort below keeps it in ties
    ranked = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)
    return ["<unk>"] + [token for token, n in ranked if n >= min_freq and token != "<unk>"]


def oov_rate(vocab, tokens: list[str]) -> float:
    return sum(1 for t in tokens if t not in vocab) / len(tokens)


def _clean_line_without_plus(line: str) -> str:
    return re.sub(r"[^A-Za-z]", " ", line).strip().lower()  # "--" becomes two spaces


def _build_vocab_alphabetical_ties(tokens: list[str], min_freq: int) -> list[str]:
    counts = Counter(tokens)
    kept = (t for t, n in counts.items() if n >= min_freq)
    return ["<unk>"] + sorted(kept, key=lambda t: (-counts[t], t))


def _oov_rate_by_type(vocab, tokens: list[str]) -> float:
    # distinct words, not tokens
    return len({t for t in tokens if t not in vocab}) / len(set(tokens))


def clean_line_keeping_case(line: str) -> str:
    """Forgets lower(): "The" and "the" would become two words of the vocabulary."""
    return re.sub(r"[^A-Za-z]+", " ", line).strip()


def build_vocab_without_unk(tokens: list[str], min_freq: int) -> list[str]:
    """Forgets to reserve index 0 for '<unk>', so every index is off by one."""
    ranked = sorted(Counter(tokens).items(), key=lambda kv: kv[1], reverse=True)
    return [token for token, n in ranked if n >= min_freq]


def oov_rate_of_known_tokens(vocab, tokens: list[str]) -> float:
    """Returns the share of known tokens, the complement of the OOV rate."""
    return sum(1 for t in tokens if t in vocab) / len(tokens)


WRONG_ANSWERS = {
    "clean_line": _clean_line_without_plus,
    "build_vocab": _build_vocab_alphabetical_ties,
    "oov_rate": _oov_rate_by_type,
}
