"""Our Tokenizer as a tiktoken `Encoding`: our ids at tiktoken's speed, where tiktoken can hold it.

tiktoken keeps no merge list: `Encoding(name, pat_str, mergeable_ranks, special_tokens)` maps each
token's bytes to a rank, merges inside a pre-token the adjacent pair whose joined bytes have the
lowest rank, and returns the rank as the id. So the ranks must be our ids, and our ids must be in
merge order: each merge result's id above the ids of the earlier merges' results (the bytes may
sit anywhere: cl100k gives byte b not id b, a space is 220). Our trained tokenizers (the merge
results after the bytes and special tokens, in merge order) and any tokenizer read from tiktoken
(cl100k, Qwen2.5) are. A tokenizer whose ids are not in merge order is refused, not
renumbered: renumbered ids would not be ours.

Even in merge order, tiktoken joins any adjacent pair whose bytes make a token, where our encoder
joins only the pair a merge names. `to_tiktoken` therefore reads the merges back out of the ranks
(`formats.recover_merges`, as `formats.from_tiktoken` does) and refuses the export unless they are
ours; that is what makes the two encoders agree.

What cannot be carried: a normalization form (tiktoken has no normalizer: normalize the text first
with `normalize.normalize`), and decode-only ids (tiktoken could merge into them: name them special
tokens). And the split pattern runs in tiktoken's regex engine, whose Unicode tables are older than
the `regex` module's: on the 17,480 code points `tiktoken_probe` describes (U+0558 is the first,
chapter 05's U+0C5C one of them) the ids can differ; tests/pipeline/interop/test_tiktoken_export.py
pins that, and the lesson's `tiktoken_probe.class_members` shows where (chapters 05 and 13).
"""

from __future__ import annotations

from typing import Any

from tutorial_lib._checks import check_str, check_type
from tutorial_lib.bpe import formats
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest


def to_tiktoken(tokenizer: Tokenizer, name: str | None = None) -> Any:
    """`tokenizer` as a `tiktoken.Encoding` named `name` (default: "tutorial_lib_" and the digest's
    first 12 hex digits), with our ids; a ValueError says why a tokenizer cannot be exported."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    name = check_str(name, "name", non_empty=True) if name is not None else None
    try:
        import tiktoken
    except ImportError:
        raise ImportError("tiktoken is not installed: install the course's comparison libraries "
                          "with pip install -c constraints.txt -e '.[bench]'") from None
    _check_exportable(tokenizer)
    specials = set(tokenizer.special_tokens.values())
    ranks = {token: i for i, token in tokenizer.vocab.items() if i not in specials}
    name = name or f"tutorial_lib_{tokenizer_manifest.digest(tokenizer)[:12]}"
    encoding = tiktoken.Encoding(name, pat_str=tokenizer.pattern, mergeable_ranks=ranks,
                                 special_tokens=dict(tokenizer.special_tokens))
    implied = formats.recover_merges(ranks)
    if implied != tokenizer.merges:
        rank = next(k for k, (a, b) in enumerate(zip(implied, tokenizer.merges)) if a != b)
        raise ValueError(f"tiktoken would not encode like this tokenizer: from merge {rank} on, "
                         f"its ranks imply the merge {implied[rank]!r} where ours is "
                         f"{tokenizer.merges[rank]!r}")
    return encoding


def _check_exportable(tokenizer: Tokenizer) -> None:
    """Refuse, by name, what a tiktoken Encoding cannot hold."""
    if tokenizer.normalization != "none":
        raise ValueError(f"this tokenizer normalizes text ({tokenizer.normalization}) and tiktoken "
                         "has no normalization step; export a tokenizer with normalization='none' "
                         "and normalize the text yourself (normalize.normalize)")
    id_of = {token: i for i, token in tokenizer.vocab.items()}
    made = {id_of[bytes([b])] for b in range(256)}
    previous = -1
    for rank, (a, b) in enumerate(tokenizer.merges):
        token_id = id_of[a + b]
        if token_id <= previous:
            raise ValueError(f"tiktoken returns ranks as ids, so ids must follow merge order, but "
                             f"merge {rank} {(a, b)!r} makes id {token_id}, not above the id "
                             f"{previous} of merge {rank - 1}")
        previous = token_id
        made.add(token_id)
    specials = set(tokenizer.special_tokens.values())
    loose = sorted(set(tokenizer.vocab) - made - specials)
    if loose:
        raise ValueError(f"ids {loose[:5]} are neither bytes, merge results nor special tokens "
                         "(decode-only); tiktoken could merge into them: name them special tokens "
                         "or leave them out")

