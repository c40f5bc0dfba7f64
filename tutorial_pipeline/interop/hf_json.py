"""Hugging Face's `tokenizer.json` both ways: our Tokenizer written as one, a byte-level BPE read.

`tokenizer.json` is what `transformers`, vLLM and most training stacks load. A byte-level BPE one
holds the same contract as ours, spelled differently:

- the normalizer: our normalization form (`hf_normalizer`);
- the pre-tokenizer: Split(our pattern, in Oniguruma's syntax: `onig_regex`), then ByteLevel, which
  maps each byte to one printable character (GPT-2's alphabet, `formats.GPT2_BYTE_DECODER`);
- the BPE model: vocab (token in that alphabet -> our id) and the merges in rank order;
- added_tokens: our special tokens (special, not normalized: matched in the text as given).

`to_huggingface` writes it; Hugging Face then gives our ids (tests/pipeline/interop/test_hf_json.py
checks every bundled corpus and random text, with `tokenizers` and `transformers`), except where the
engines' Unicode tables differ: 17,480 code points Python 3.11 calls unassigned (`onig_regex`), and
in the normalizer 171 characters of Unicode 12.1 to 14.0 (the 72 NFKC decompositions, the combining
classes of 98 marks and one composition, all new to Unicode after `tokenizers`' normalization
tables) plus 55 unassigned letters that Rust lower-cases; the tests pin each set.

The export also carries our contract, under the key `CONTRACT_KEY` inside "model": Hugging Face's
BPE reader skips keys it does not know (its top level refuses them), so the file still loads, and a
learner can read which tokenizer digest the file holds. `from_huggingface` uses it to give back the
very pattern and metadata, so ours -> tokenizer.json -> ours keeps the digest, and refuses a file
whose content no longer gives the digest it records. A file saved again by `tokenizers` loses the
key; read back, it then has the file's own regex as its pattern (for GPT-4's, the rewritten one), so
the same ids but another digest.

`from_huggingface` takes any byte-level BPE tokenizer.json (GPT-2's, Qwen's, DeepSeek's) and
refuses, by name, what our Tokenizer cannot do: other models (WordPiece, Unigram, WordLevel), BPE
options (dropout, byte fallback, ignore_merges, word prefixes), and pre-tokenizer steps,
normalizers, post-processors and decoders it lacks. Added tokens become special tokens, which
`encode` takes only when allowed_special names them: Hugging Face's `encode(text)` is our
`encode(text, allowed_special="all")`.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_str, check_type
from tutorial_lib.bpe.formats import GPT2_BYTE_DECODER
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest
from tutorial_lib.contract.normalize import check_form
from tutorial_lib.data import write_atomically
from tutorial_pipeline.interop.onig_regex import from_oniguruma, to_oniguruma

CONTRACT_KEY = "tutorial_lib"  # inside "model": our manifest and pattern
GPT2_BYTE_ENCODER = {b: ch for ch, b in GPT2_BYTE_DECODER.items()}
_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
               "use_regex": False}


class Parts(NamedTuple):
    """A Tokenizer's constructor arguments, in order, as `from_spec` reads them from a file: the
    caller builds it with `Tokenizer(*parts)`, after changing a part if it must (`_replace`)."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: list[str]
    pattern: str
    metadata: dict
    normalization: str = "none"


# ------------------------------------------------------------------------------------- the export


def to_huggingface(tokenizer: Tokenizer, path: str | os.PathLike) -> Path:
    """Write `tokenizer` as a Hugging Face tokenizer.json at `path`, atomically, with our ids and
    digest (module docstring); returns the path."""
    path = check_path(path, "path")
    write_atomically(path, json.dumps(to_spec(tokenizer), ensure_ascii=False, indent=1) + "\n")
    return path


def to_spec(tokenizer: Tokenizer) -> dict[str, Any]:
    """The tokenizer.json of `tokenizer`, as the dict `json.dumps` writes."""
    vocab = _model_vocab(tokenizer)
    merges = [f"{byte_level(a)} {byte_level(b)}" for a, b in tokenizer.merges]  # all versions read
    added = [{"id": i, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for token, i in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])]
    split = {"type": "Split", "pattern": {"Regex": to_oniguruma(tokenizer.pattern)},
             "behavior": "Isolated", "invert": False}
    model = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
             "ignore_merges": False,
             CONTRACT_KEY: {"manifest": tokenizer_manifest.manifest(tokenizer),
                            "pattern": tokenizer.pattern,
                            "metadata": tokenizer.metadata},
             "vocab": vocab, "merges": merges}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": hf_normalizer(tokenizer.normalization),
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, _BYTE_LEVEL]},
            "post_processor": None, "decoder": _BYTE_LEVEL, "model": model}


def _model_vocab(tokenizer: Tokenizer) -> dict[str, int]:
    """Every token -> id: ordinary ones in GPT-2's alphabet, special ones as their own text.

    Hugging Face gives an added token the id it has in the model's vocab and ignores the id in
    added_tokens, so the special tokens must be in the vocab too (GPT-2's file has <|endoftext|>
    in both); a special token's text that is also an ordinary token's spelling ("Ġhi") is refused.
    """
    specials = {i: token for token, i in tokenizer.special_tokens.items()}
    vocab: dict[str, int] = {}
    for i, token in sorted(tokenizer.vocab.items()):
        key = specials[i] if i in specials else byte_level(token)
        if vocab.setdefault(key, i) != i:
            raise ValueError(f"{key!r} is both a special token's text and an ordinary token's "
                             f"byte-level form (ids {vocab[key]} and {i}), so a tokenizer.json "
                             "cannot tell them apart")
    return vocab


def byte_level(token: bytes) -> str:
    """`token` in GPT-2's byte alphabet: each byte one printable character (a space is "Ġ")."""
    return "".join(map(GPT2_BYTE_ENCODER.__getitem__, token))


def hf_normalizer(form: str) -> dict | None:
    """Hugging Face's normalizer for our normalization `form` (None for "none").

    NFC and NFKC are Hugging Face's own. NFKC_casefold is NFKC(casefold(NFKC(x))), and Hugging Face
    has no case folding, only Lowercase; but casefold(c) == casefold(lower(c)) for every character,
    so Lowercase followed by one Replace for each character that lower-casing can leave and that
    case folding still changes (183 of them: "ß" -> "ss", "ς" -> "σ", Cherokee small letters to
    capitals, ...) is case folding.
    """
    if check_form(form) == "none":
        return None
    if form in ("NFC", "NFKC"):
        return {"type": form}
    replaces = [{"type": "Replace", "pattern": {"String": ch}, "content": ch.casefold()}
                for ch in _folded_after_lowercase()]
    return {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, *replaces,
                                                {"type": "NFKC"}]}


@cache
def _folded_after_lowercase() -> tuple[str, ...]:
    """The characters that str.lower() can output and str.casefold() changes, in code point order.

    Folding them after lower-casing cannot cascade: what casefold gives, casefold keeps.
    """
    chars = {ch for code in range(0x110000) for ch in chr(code).lower() if ch.casefold() != ch}
    return tuple(sorted(chars))


# ------------------------------------------------------------------------------------- the import


def from_huggingface(path: str | os.PathLike, pattern: str | None = None) -> Tokenizer:
    """Our Tokenizer of the byte-level BPE tokenizer.json at `path` (module docstring).

    `pattern` replaces the file's Split steps: for a file whose pre-tokenizer is several Splits in a
    row (DeepSeek-V4's), which our one split pattern can only stand for if the caller has written
    one regex that cuts the same way (`model_imports.DEEPSEEK_V4_PATTERN`, tested against it).
    """
    path = check_regular_file(path, "path")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path} is not a JSON file this code can read: {e}") from None
    return Tokenizer(*from_spec(spec, str(path), pattern))


def from_spec(spec: Any, where: str = "tokenizer.json", pattern: str | None = None) -> Parts:
    """The Tokenizer parts (`Tokenizer(*parts)`) of a tokenizer.json already parsed, as
    `from_huggingface` reads them; `where` names it in messages."""
    check_type(spec, "spec", dict, "a parsed tokenizer.json (a dict)")
    if pattern is not None:
        check_str(pattern, "pattern", non_empty=True)
    try:
        return _parts(spec, where, pattern)
    except (KeyError, TypeError, AttributeError) as e:  # a field missing or of the wrong kind
        raise ValueError(f"{where} is not a tokenizer.json this code can read: "
                         f"{type(e).__name__} {e}") from None


def _parts(spec: dict, where: str, pattern: str | None) -> Parts:
    model = spec.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE":
        kind = model.get("type") if isinstance(model, dict) else model
        raise ValueError(f"{where} has the model type {kind!r}: only a byte-level BPE model can "
                         "be read (WordPiece, Unigram and WordLevel models are not BPE)")
    _check_bpe_options(model, where)
    vocab, merges, specials = _vocab_merges_specials(model, spec.get("added_tokens") or [], where)
    normalization = _normalization(spec.get("normalizer"), where)
    split = _split_pattern(spec.get("pre_tokenizer"), where, pattern)
    for step in ("post_processor", "decoder"):
        _check_byte_level_only(spec.get(step), step, where)
    contract = model.get(CONTRACT_KEY)
    if not isinstance(contract, dict):
        metadata = {"source": f"Hugging Face tokenizer.json {Path(where).name}"}
        return Parts(vocab, merges, specials, split, metadata, normalization)
    return _with_contract(Parts(vocab, merges, specials, split, {}, normalization), contract,
                          spec, where)


def _with_contract(parts: Parts, contract: dict, spec: dict, where: str) -> Parts:
    """The parts with the pattern and metadata of the contract our export recorded, checked.

    The file's own Split regex must be the recorded pattern's translation, and the content must
    give the digests the contract records, or the file was edited after it was written.
    """
    pattern, metadata, recorded = (contract.get(key) for key in ("pattern", "metadata", "manifest"))
    if not (isinstance(pattern, str) and isinstance(metadata, dict) and isinstance(recorded, dict)):
        raise ValueError(f"{where}: its {CONTRACT_KEY} contract lacks the pattern, metadata or "
                         "manifest; remove the contract to read the file as it is now")
    if to_oniguruma(pattern) != _regex_of(spec):
        raise ValueError(f"{where}: the Split regex is not the one its {CONTRACT_KEY} contract "
                         "records (the pre-tokenizer was edited); remove the contract to read the "
                         "file as it is now")
    parts = parts._replace(pattern=pattern, metadata=metadata)
    id_of = {token: i for i, token in parts.vocab.items()}
    specials = {token: id_of[token.encode("utf-8")] for token in parts.special_tokens}
    content = tokenizer_manifest.digests(parts.vocab, parts.merges, pattern, specials,
                                         parts.normalization)
    content["tokenizer_sha256"] = tokenizer_manifest.tokenizer_sha256(content)
    for key in ("vocab_sha256", "merges_sha256", "settings_sha256", "tokenizer_sha256"):
        if content[key] != recorded.get(key):
            raise ValueError(f"{where} was edited or damaged: its content gives {key} "
                             f"{content[key]}, but its {CONTRACT_KEY} contract says "
                             f"{recorded.get(key)}")
    return parts


def _regex_of(spec: dict) -> str | None:
    """The regex of the first pre-tokenizer step (our export's Split)."""
    steps = spec["pre_tokenizer"].get("pretokenizers") or [spec["pre_tokenizer"]]
    return steps[0].get("pattern", {}).get("Regex")


def _check_bpe_options(model: dict, where: str) -> None:
    """Refuse the BPE options our model does not have, by name."""
    lacks = {"dropout": "merges skipped at random", "byte_fallback": "bytes for unknown characters",
             "ignore_merges": "a whole word in the vocab taken without merging",
             "continuing_subword_prefix": "a prefix on tokens inside a word",
             "end_of_word_suffix": "a suffix on tokens ending a word"}
    for option, meaning in lacks.items():
        if model.get(option) not in (None, False, "", 0):
            raise ValueError(f"{where}: the BPE model sets {option}={model[option]!r} "
                             f"({meaning}), which our byte-level BPE does not have")


def _vocab_merges_specials(model: dict, added: list, where: str
                           ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]], list[str]]:
    """Our vocab (id -> bytes), merges and special tokens from the model and the added tokens.

    A vocab entry is in GPT-2's byte alphabet, except an added token's own text (DeepSeek lists its
    <｜begin▁of▁sentence｜> in both).
    """
    specials: dict[str, int] = {}
    for token in added:
        flags = [flag for flag in ("single_word", "lstrip", "rstrip") if token.get(flag)]
        if flags:
            raise ValueError(f"{where}: the added token {token.get('content')!r} sets {flags}, "
                             "which our special tokens do not have")
        specials[token["content"]] = token["id"]
    vocab: dict[int, bytes] = {i: token.encode("utf-8") for token, i in specials.items()}
    for token, i in model.get("vocab", {}).items():
        if token in specials and specials[token] == i:
            continue
        if i in vocab:
            raise ValueError(f"{where}: id {i} is both the added token {vocab[i]!r} and the vocab "
                             f"entry {token!r}")
        vocab[i] = _from_byte_level(token, where)
    merges = []
    for merge in model.get("merges", []):
        pair = merge.split(" ") if isinstance(merge, str) else merge
        if len(pair) != 2:
            raise ValueError(f"{where}: the merge {merge!r} is not two tokens")
        merges.append((_from_byte_level(pair[0], where), _from_byte_level(pair[1], where)))
    return vocab, merges, sorted(specials, key=specials.__getitem__)


def _from_byte_level(token: str, where: str) -> bytes:
    try:
        return bytes(map(GPT2_BYTE_DECODER.__getitem__, token))
    except KeyError as e:
        raise ValueError(f"{where}: the vocab entry {token!r} holds {e.args[0]!r}, which is not in "
                         "GPT-2's byte alphabet, so the model is not byte-level BPE") from None


def _normalization(normalizer: Any, where: str) -> str:
    """Our normalization form for a tokenizer.json normalizer, or a ValueError naming it."""
    if isinstance(normalizer, dict) and normalizer.get("type") == "Sequence":
        steps = normalizer.get("normalizers") or []
        if not steps:
            return "none"  # DeepSeek-V4's empty Sequence
        if len(steps) == 1:
            return _normalization(steps[0], where)
    for form in ("none", "NFC", "NFKC", "NFKC_casefold"):
        if normalizer == hf_normalizer(form):
            return form
    described = (normalizer.get("type") if isinstance(normalizer, dict) else normalizer)
    if described == "Sequence":  # its steps' types, each run of one type once: [NFKC, Replace, ...]
        types = [step.get("type") for step in normalizer.get("normalizers", [])]
        described = [kind for k, kind in enumerate(types) if k == 0 or types[k - 1] != kind]
    raise ValueError(f"{where} has the normalizer {described!r}; our tokenizer knows only none, "
                     "NFC, NFKC and NFKC_casefold (normalize.FORMS), so it cannot do that step")


def _split_pattern(pre_tokenizer: Any, where: str, pattern: str | None) -> str:
    """Our split pattern for a tokenizer.json pre-tokenizer, or a ValueError naming its steps.

    Readable: ByteLevel with use_regex (GPT-2's own regex), or Split(regex, Isolated) then
    ByteLevel without it; with `pattern` given, any Splits then ByteLevel.
    """
    steps = [] if pre_tokenizer is None else (pre_tokenizer.get("pretokenizers")
                                              if pre_tokenizer.get("type") == "Sequence"
                                              else [pre_tokenizer])
    names = [step.get("type") for step in steps]
    last = steps[-1] if steps else {}
    if names and names[-1] == "ByteLevel" and last.get("add_prefix_space"):
        raise ValueError(f"{where}: the ByteLevel pre-tokenizer sets add_prefix_space (a space "
                         "added before the text), which our tokenizer does not do")
    if names == ["ByteLevel"] and last.get("use_regex", True) and pattern is None:
        return GPT2_PATTERN  # ByteLevel's built-in regex is GPT-2's
    splits = steps[:-1]
    if names[-1:] == ["ByteLevel"] and not last.get("use_regex", True) and \
            all(_is_isolated_regex(step) for step in splits):
        if pattern is not None and splits:
            return pattern
        if len(splits) == 1:
            return from_oniguruma(splits[0]["pattern"]["Regex"])
    raise ValueError(f"{where} has the pre-tokenizer steps {names}; our tokenizer cuts text with "
                     "one split pattern and then takes its bytes, so it reads only "
                     "[Split(regex, Isolated), ByteLevel] or [ByteLevel]. For several Splits in a "
                     "row pass pattern= with one regex that cuts the same way")


def _is_isolated_regex(step: dict) -> bool:
    return (step.get("type") == "Split" and "Regex" in (step.get("pattern") or {})
            and step.get("behavior") == "Isolated" and not step.get("invert"))


def _check_byte_level_only(step: Any, name: str, where: str) -> None:
    """A post-processor or decoder must be absent or ByteLevel (which adds no tokens and joins the
    bytes back); anything else changes ids or text in a way ours does not."""
    kinds = [] if step is None else [s.get("type") for s in step.get(
        "processors" if name == "post_processor" else "decoders", [step])]
    if step is not None and step.get("type") == "Sequence" and not kinds:
        return
    if any(kind != "ByteLevel" for kind in kinds):
        raise ValueError(f"{where} has the {name} {kinds}; our tokenizer has no such step (a "
                         "TemplateProcessing post-processor, say, adds tokens to every encoding)")

