"""SuperBPE: byte-level BPE in two stages, subwords first, then "superwords" that bridge spaces.

Liu, Hayase, Hofmann, Oh, Smith and Choi, "SuperBPE: Space Travel for Language Models" (COLM 2025,
arXiv 2503.13423). What their code does (github alisawuffles/superbpe, read through its fork
amazingvince/superbpe, which holds the authors' commits; the trainer is their patched Hugging Face
tokenizers, alisawuffles/tokenizers-superbpe):

- Stage 1 is ordinary BPE within pre-tokens (Digits, GPT-2's pattern less contractions and digit
  runs, ByteLevel), trained to the full size; its first t merges are kept.
- Stage 2 trains again on the same text with only digits still cut apart, so ", I am" can become
  one token; no piece spans a line break. The fork first applies the inherited merges, in order, to
  the new pieces, then learns new merges, skipping any token that holds ": " or more than 4 words
  (pieces between spaces; commit a27d8bf, "limit to 4-word tokens and special case colon").
- Encoding keeps stage 2's pre-tokenizer and applies all the merges by rank, as for any BPE.

What they report, on English at 200k entries: "SuperBPE encodes a fixed piece of text with up to
33% fewer tokens than BPE on average" and "+4.0% absolute improvement over the BPE baseline across
30 downstream tasks" with "27% less compute at inference time" (8B models). Their encoding notebook
gives bytes per token 4.457 for BPE, 6.634 for t = 80k (4.457 / 6.634 = 0.67: the "33% fewer") and
6.092 for t = 180k (0.73: the "27%"; that model's context of 3,000 tokens matches a BPE model's
4,096 in bytes).

Here: stage 1 is `trainer.train_bpe` (GPT-2's pattern by default) up to `transition` entries.
Stage 2 cuts the text with `SUPERWORD_PATTERN`, each piece starts as its stage-1 ids (what
`PieceEncoder` computes), and `train_bpe`'s merge loop (`PairIndex`, `pop_best`, the same tie-break)
goes on, skipping the tokens `superword_allowed` refuses. The result is a `Tokenizer` with the
stage-2 pattern, so it encodes as SuperBPE's does (`hf_tokenizer` runs it in Hugging Face
tokenizers, same ids). Unlike the fork: digit runs are GPT-2's rather than cut in threes, line
breaks stay with the line before them, every inherited merge is kept (so `transition ==
vocab_size` gives exactly `train_bpe`'s merges), and ties go as in `train_bpe`. A stage-2 merge
need not bridge anything (Chinese gets in-word merges too): `bridges_pretokens` tells the real
superwords apart. Whether the English gain carries over to Chinese, where GPT-2's pattern already
keeps a Han run in one pre-token, is measured in benchmarks/bench_superbpe.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tqdm.auto import tqdm

from tutorial_lib._check_data import check_bool
from tutorial_lib._checks import check_int, check_iterable, check_str, check_type
from tutorial_lib.bpe import corpus, trainer
from tutorial_lib.bpe.corpus import TextSource
from tutorial_lib.bpe.fast_encode import PieceEncoder
from tutorial_lib.bpe.formats import GPT2_BYTE_DECODER
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, check_special_tokens, compile_pattern,
                                          pretokenize)
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import ByteVocab, Merges, PairIndex, pop_best

# Stage 2's pieces: GPT-2's digit runs (" 2024"), and everything else up to the end of a line
# together with the line breaks after it. "It was 5 pm.\n\nThe" -> "It was", " 5", " pm.\n\n",
# "The". Spaces and punctuation no longer cut anything.
SUPERWORD_PATTERN = r" ?\p{N}+|(?:(?! ?\p{N})[^\n])+\n*|\n+"
MAX_WORDS = 4  # SuperBPE's cap: a token holds at most 4 space-separated pieces
FORBIDDEN = (": ",)  # SuperBPE's one forbidden string: no stage-2 token holds ": "
NAME = "tutorial_lib.evaluation.superbpe.train_superbpe"


def superword_allowed(token: bytes, max_words: int | None = MAX_WORDS,
                      forbidden: Iterable[str] = FORBIDDEN) -> bool:
    """May stage 2 make `token`? Not if it holds more than `max_words` pieces between spaces
    (None: no cap; only the space byte separates words, as in the fork) or one of the `forbidden`
    strings (SuperBPE forbids ": "; the commit that adds the rule gives no reason)."""
    check_type(token, "token", bytes, "bytes")
    max_words, forbidden = _check_rules(max_words, forbidden)
    return _allowed(token, max_words, forbidden)


def _allowed(token: bytes, max_words: int | None, forbidden: tuple[bytes, ...]) -> bool:
    if any(f in token for f in forbidden):
        return False
    # Pieces between spaces, empty ones not counted (bytes.split() would cut at \n and \t too).
    return max_words is None or sum(1 for word in token.split(b" ") if word) <= max_words


def _check_rules(max_words: int | None, forbidden: Iterable[str]
                 ) -> tuple[int | None, tuple[bytes, ...]]:
    """max_words as an int >= 1 or None; forbidden as the UTF-8 bytes of non-empty strs."""
    if max_words is not None:
        max_words = check_int(max_words, "max_words", low=1)
    strings = list(check_iterable(forbidden, "forbidden", "a collection of str, e.g. [': ']"))
    for i, text in enumerate(strings):
        if not check_str(text, f"forbidden[{i}]", utf8=True):
            raise ValueError(f"forbidden[{i}] must be a non-empty str (every token holds '')")
    return max_words, tuple(sorted({text.encode("utf-8") for text in strings}))  # a set is fine


def bridges_pretokens(token: bytes, pattern: str = GPT2_PATTERN) -> bool:
    """Does `token` span more than one pre-token of `pattern`: is it a superword proper? The bytes
    of a partial character at either end are left out. ", I am" bridges three GPT-2 pre-tokens; a
    stage-2 merge inside one Han run does not."""
    check_type(token, "token", bytes, "bytes")
    text = token.decode("utf-8", errors="ignore")
    return len(pretokenize(text, pattern)) > 1 if text else False


# --- training -------------------------------------------------------------------------------------


def train_superbpe(texts_or_path: TextSource, vocab_size: int, transition: int,
                   special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN, *,
                   superword_pattern: str = SUPERWORD_PATTERN, max_words: int | None = MAX_WORDS,
                   forbidden: Iterable[str] = FORBIDDEN, progress: bool = False) -> Tokenizer:
    """Train SuperBPE: `train_bpe` up to `transition` entries, then merges across spaces.

    texts_or_path, special_tokens, pattern: as for `trainer.train_bpe`; `pattern` is stage 1's.
    vocab_size: entries at the end (256 bytes + special tokens + merges of both stages).
    transition: entries when stage 2 begins, 256 + len(special_tokens) .. vocab_size (the paper's
        t: 180k of 200k for its 8B model). If stage 1 runs out of pairs before, stage 2 begins
        there; transition == vocab_size means no stage 2: `train_bpe`'s merges, exactly.
    superword_pattern: stage 2's split pattern, also the returned tokenizer's.
    max_words, forbidden: the tokens stage 2 may not make (`superword_allowed`).
    Either stage stops early if no pair is left. `superword_merges` gives the stage-2 merges.
    """
    texts, settings = _start(texts_or_path, vocab_size, transition, special_tokens, pattern,
                             superword_pattern, max_words, forbidden, progress)
    vocab, merges = trainer.train_bpe(texts, transition, settings["special_tokens"], pattern,
                                      progress=progress)
    settings["stage1_merges"] = len(merges)
    if transition < vocab_size:
        words, freqs = _stage_two_words(texts, settings, vocab, merges)
        index = PairIndex.build(words, freqs, vocab)
        rules = settings["max_words"], tuple(t.encode("utf-8") for t in settings["forbidden"])
        bar = tqdm(total=vocab_size - len(vocab), desc="superwords", disable=not progress)
        while len(vocab) < vocab_size:
            # The most frequent pair from the heap, as in train_bpe; a refused one is dropped: its
            # count can only fall, and it is never new again, so it never comes back.
            best = pop_best(index.heap, index.counts)
            if best is None:
                break
            token = vocab[best[0]] + vocab[best[1]]
            if not _allowed(token, *rules):
                continue
            new_id = len(vocab)
            vocab[new_id] = token
            merges.append((vocab[best[0]], vocab[best[1]]))
            index.merge(best, new_id, token)
            bar.update()
        bar.close()
    metadata = {"trainer": settings, "corpus_digest": corpus.corpus_digest(texts)}
    return Tokenizer(vocab, merges, settings["special_tokens"], settings["superword_pattern"],
                     metadata)


def _start(texts_or_path: TextSource, vocab_size: int, transition: int,
           special_tokens: Iterable[str], pattern: str, superword_pattern: str,
           max_words: int | None, forbidden: Iterable[str], progress: bool
           ) -> tuple[TextSource, dict[str, Any]]:
    """Check the arguments; the texts (an iterator read into a list: they are read three times)
    and the settings the tokenizer's metadata records."""
    if isinstance(texts_or_path, Iterator):
        texts_or_path = list(texts_or_path)
    special_tokens = check_special_tokens(special_tokens)
    base = 256 + len(special_tokens)
    vocab_size = check_int(vocab_size, "vocab_size", low=base)
    transition = check_int(transition, "transition")
    if not base <= transition <= vocab_size:
        raise ValueError(f"transition must be a vocabulary size from 256 + len(special_tokens) = "
                         f"{base} to vocab_size = {vocab_size} (stage 2 begins when the "
                         f"vocabulary has this many entries), got {transition}")
    max_words, rules = _check_rules(max_words, forbidden)
    check_bool(progress, "progress")
    settings = {
        "name": NAME, "vocab_size": vocab_size, "transition": transition,
        "pattern": compile_pattern(pattern).pattern,
        "superword_pattern": compile_pattern(superword_pattern).pattern,
        "max_words": max_words, "forbidden": [text.decode("utf-8") for text in rules],
        "special_tokens": list(special_tokens), "tie_break": trainer.TIE_BREAK,
    }
    return texts_or_path, settings


def _stage_two_words(texts: TextSource, settings: dict[str, Any], vocab: ByteVocab,
                     merges: Merges) -> tuple[list[list[int]], list[int]]:
    """Each distinct stage-2 piece (the corpus cut with the stage-2 pattern, special tokens cut out
    first) as its stage-1 ids, with how often it occurs.

    `PieceEncoder` merges by rank, the ids a replay of the merges in order gives (see
    fast_encode.apply_merges), and cuts long Chinese pieces where no merge reaches across.
    """
    specials, pattern = settings["special_tokens"], settings["superword_pattern"]
    stream = corpus.iter_texts(texts, specials, corpus.CHUNK_SIZE, pattern)
    counts = corpus.count_pretokens(stream, specials, pattern)
    encoder = PieceEncoder({token: i for i, token in vocab.items()}, merges)
    words = [list(encoder[piece.decode("utf-8")]) for piece in counts]
    return words, list(counts.values())


# --- reading a trained tokenizer ------------------------------------------------------------------


def stage_one_merges(tokenizer: Tokenizer) -> int:
    """How many of `tokenizer`'s merges stage 1 learned (a tokenizer from `train_superbpe`)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    settings = tokenizer.metadata.get("trainer", {})
    if settings.get("name") != NAME:
        raise ValueError("tokenizer was not trained by train_superbpe (its metadata names the "
                         f"trainer {settings.get('name')!r}), so it has no stage 2")
    return settings["stage1_merges"]


def superword_merges(tokenizer: Tokenizer) -> Merges:
    """The merges stage 2 learned, in order: those after `stage_one_merges(tokenizer)`."""
    return tokenizer.merges[stage_one_merges(tokenizer):]


def hf_tokenizer(tokenizer: Tokenizer) -> Any:
    """`tokenizer` in Hugging Face `tokenizers`, encoding as SuperBPE's own tokenizer.json does: a
    BPE model with the same ids and merges behind a Split on its pattern and ByteLevel without its
    regex. For ordinary text: special tokens are not registered."""
    from tokenizers import Regex, models, pre_tokenizers
    from tokenizers import Tokenizer as HFTokenizer

    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    char = {b: c for c, b in GPT2_BYTE_DECODER.items()}
    text = lambda token: "".join(map(char.__getitem__, token))  # noqa: E731
    specials = set(tokenizer.special_tokens.values())
    vocab = {text(token): i for i, token in tokenizer.vocab.items() if i not in specials}
    hf = HFTokenizer(models.BPE(vocab, [(text(a), text(b)) for a, b in tokenizer.merges]))
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(tokenizer.pattern), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    return hf
