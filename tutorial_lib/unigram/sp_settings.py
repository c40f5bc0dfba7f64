"""SentencePiece's training settings measured on Chinese: one setting changed at a time.

A handful of SentencePiece's dozens of trainer options decide what happens to Chinese text:
`model_type`, `character_coverage`, `byte_fallback`, `split_digits`, `split_by_number`,
`split_by_unicode_script`, `add_dummy_prefix` and `normalization_rule_name`. Advice about them is
easy to repeat and hard to check, so this module trains small models that differ in one option and
measures them on held-out text: bytes per token, tokens per 1,000 characters and the characters
the model cannot represent (one `<unk>`, or UTF-8 byte pieces with `byte_fallback`). Tokens per
character is the common ruler: a BPE model's "scores" are negated merge ranks, not
log-probabilities, so its likelihood cannot be compared with a Unigram model's.

Reproducible training: `num_threads=1` (Unigram's EM splits the corpus between threads, and the
sums then differ in the last bits), a fixed `spm.set_random_generator_seed` (it drives sentence
sampling) and `input_sentence_size=0` (every line): two trainings give the same model. That is
also why the chapter's models can be shipped: `training_key` names a training (the lines, every
option, the SentencePiece version), and `train` loads the model data/sentencepiece holds under
that key instead of training it again (tools/ship_sentencepiece_models.py writes them).
"""

from __future__ import annotations

import hashlib
import io
import json
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib import data
from tutorial_lib._check_data import check_mapping_keys, check_str_list
from tutorial_lib._checks import check_int, check_str, check_type, check_utf8

# The chapter's base settings: SentencePiece's own defaults for the options the chapter varies,
# written out so a table can show them, plus what makes training reproducible and complete
# (num_threads=1, every sentence, no long line skipped, a fixed seed). `NOT_DEFAULTS` lists the
# entries that are not SentencePiece's defaults.
BASE_OPTIONS: dict[str, Any] = {
    "model_type": "unigram",
    "vocab_size": 8000,  # Lu Xun + Tatoeba keep 4,346 characters at 0.9995
    "character_coverage": 0.9995,
    "byte_fallback": False,
    "normalization_rule_name": "nmt_nfkc",
    "split_digits": False,
    "split_by_number": True,
    "split_by_unicode_script": True,
    "add_dummy_prefix": True,
    "remove_extra_whitespaces": True,
    "num_threads": 1,
    "input_sentence_size": 0,
    "max_sentence_length": 1 << 16,
    "seed": 0,
}

# Where BASE_OPTIONS departs from SentencePiece: the option's default there (`spm_train --help`).
# `seed` is no trainer option at all: `train` hands it to spm.set_random_generator_seed.
NOT_DEFAULTS: dict[str, Any] = {
    "num_threads": 16,  # several threads split EM's sums, so two runs may differ in the last bits
    "max_sentence_length": 4192,  # bytes; SentencePiece skips a longer line
    "seed": None,
}

# Options this module sets itself: where the input and the model live, and the log level.
RESERVED = ("input", "model_prefix", "sentence_iterator", "model_writer", "input_format",
            "minloglevel")


@dataclass(frozen=True)
class Model:
    """A trained model: its name, the options it was trained with and the processor."""

    name: str
    options: dict[str, Any]
    processor: Any = field(repr=False, compare=False)


@dataclass(frozen=True)
class Measurement:
    """What one model does to one held-out text.

    `unknown_chars`: character occurrences no piece represents (`<unk>`, or byte pieces with
    byte_fallback); `distinct_unknown` of `distinct_chars` counts them once each.
    `lone_prefix_tokens`: tokens that are just the "▁" add_dummy_prefix puts before a line when no
    piece starts with it (a Chinese line usually pays one).
    """

    model: str
    test: str
    chars: int
    utf8_bytes: int
    tokens: int
    bytes_per_token: float
    tokens_per_1000_chars: float
    unknown_chars: int
    unknown_share: float
    unk_tokens: int
    byte_tokens: int
    distinct_chars: int
    distinct_unknown: int
    lone_prefix_tokens: int


@dataclass(frozen=True)
class SettingResult:
    """One variant of `compare_settings`: the options it changed and one measurement per test."""

    name: str
    changed: dict[str, Any]
    vocab_size: int
    alphabet: int
    measurements: tuple[Measurement, ...]
    model: Model = field(repr=False, compare=False)


@dataclass(frozen=True)
class Segmentation:
    """What a model does to one string: the normalized form, its pieces and the decoded text."""

    text: str
    normalized: str
    pieces: tuple[str, ...]
    ids: tuple[int, ...]
    decoded: str

    @property
    def round_trip(self) -> bool:
        """decode(encode(text)) == text: false after a normalization or an <unk>."""
        return self.decoded == self.text


def check_options(options: object, name: str = "options") -> dict[str, Any]:
    """The options as a dict of str -> bool/int/float/str, refusing the ones this module sets."""
    options = check_mapping_keys(options, name, str, "a dict of option name -> value")
    for key, value in options.items():
        if key in RESERVED:
            raise ValueError(f"{name}[{key!r}] is set by sp_settings itself; leave it out")
        check_type(value, f"{name}[{key!r}]", (bool, int, float, str), "a bool, int, float or str")
    if "seed" in options:
        check_int(options["seed"], f"{name}['seed']", low=0, high=2**32 - 1)
    return options


def _clean_lines(texts: object, name: str) -> list[str]:
    lines = [line for line in check_str_list(texts, name, non_empty=True) if line.strip()]
    if not lines:
        raise ValueError(f"{name} must hold at least one non-blank line")
    for i, line in enumerate(lines):
        check_utf8(line, f"{name}[{i}]")
        if "\n" in line or "\r" in line:
            raise ValueError(f"{name}[{i}] must be one line (no newline inside), got {line[:40]!r}")
    return lines


# The shipped models: data/sentencepiece/<key>.model, and MANIFEST.json (key -> the model's name,
# options, number of lines and sha256), which `checked_bytes` holds each file to.
SHIPPED_DIR = "sentencepiece"


def training_key(lines: Sequence[str], options: Mapping[str, Any]) -> str:
    """A name for one training: a digest of the SentencePiece version, the options (seed included)
    and the lines. Training is reproducible, so one key is one model, whoever trains it."""
    import sentencepiece as spm

    digest = hashlib.sha256(json.dumps([spm.__version__, sorted(options.items())]).encode())
    digest.update("\n".join(lines).encode("utf-8"))
    return digest.hexdigest()[:32]


def shipped_proto(key: str) -> bytes | None:
    """The model data/sentencepiece ships under `key` (checked against its sha256), or None."""
    manifest_path = data.DATA_DIR / SHIPPED_DIR / "MANIFEST.json"
    entry = data.read_json(manifest_path).get(key) if manifest_path.exists() else None
    if entry is None:
        return None
    return data.checked_bytes(manifest_path.with_name(f"{key}.model"), entry["sha256"],
                              f"shipped SentencePiece model {entry['name']!r}",
                              "restore it from git, or run tools/ship_sentencepiece_models.py")


def train(texts: Sequence[str], options: Mapping[str, Any] | None = None, *,
          name: str = "model", shipped: bool = True) -> Model:
    """Train SentencePiece on `texts` (one sentence each) with BASE_OPTIONS updated by `options`.
    Its refusals (an unknown option, a vocab_size the text cannot fill) come back as ValueError
    with its message. With `shipped`, a training that data/sentencepiece already holds (the same
    `training_key`) is loaded, not run again; `shipped=False` always trains (to time it)."""
    import sentencepiece as spm

    lines = _clean_lines(texts, "texts")
    merged = {**BASE_OPTIONS, **check_options({} if options is None else options)}
    name = check_str(name, "name")
    proto = shipped_proto(training_key(lines, merged)) if shipped else None
    if proto is None:
        proto = _run_trainer(lines, merged)
    return Model(name, merged, spm.SentencePieceProcessor(model_proto=proto))


def _run_trainer(lines: list[str], options: dict[str, Any]) -> bytes:
    """The model SentencePiece trains, as bytes. No file is involved: a file's path would be
    written into the model, and two trainings of the same lines would differ in those bytes."""
    import sentencepiece as spm

    trainer_options = dict(options)
    seed = trainer_options.pop("seed")
    model = io.BytesIO()  # lines in from an iterator, the model out to memory: no file anywhere
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                       minloglevel=2, **trainer_options)
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"SentencePiece refused options {trainer_options}: {e}") from None
    return model.getvalue()


def learned_pieces(model: Model) -> set[str]:
    """The pieces training chose: not <unk>/<s>/</s>, not the 256 byte pieces."""
    sp = check_type(model, "model", Model, "a Model").processor
    return {sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i))}


def alphabet_size(model: Model) -> int:
    """How many single characters are pieces ("▁" included): the characters the model covers."""
    return sum(len(p) == 1 for p in learned_pieces(model))


def uncovered_chars(model: Model, chars: set[str] | str) -> set[str]:
    """The characters among `chars` the model can only write as <unk> or byte pieces (asked one at
    a time: SentencePiece makes a run of unknown characters one <unk>)."""
    sp = check_type(model, "model", Model, "a Model").processor
    return {c for c in set(chars) if not c.isspace()
            and any(sp.is_unknown(i) or sp.is_byte(i) for i in sp.encode(c))}


def measure(model: Model, texts: Sequence[str], *, test: str = "held-out") -> Measurement:
    """Bytes/token, tokens per 1,000 characters and the characters lost, on held-out `texts`."""
    check_type(model, "model", Model, "a Model")
    lines = _clean_lines(texts, "texts")
    sp = model.processor
    ids = [i for line in lines for i in sp.encode(line)]
    counts = Counter(c for line in lines for c in line)
    lost = uncovered_chars(model, set(counts))
    chars = sum(counts.values())
    n_bytes = sum(len(line.encode("utf-8")) for line in lines)
    unknown = sum(counts[c] for c in lost)
    prefix = sp.piece_to_id("▁")
    return Measurement(
        model=model.name, test=check_str(test, "test"), chars=chars, utf8_bytes=n_bytes,
        tokens=len(ids), bytes_per_token=round(n_bytes / len(ids), 4),
        tokens_per_1000_chars=round(1000 * len(ids) / chars, 2), unknown_chars=unknown,
        unknown_share=round(unknown / chars, 6), unk_tokens=sum(map(sp.is_unknown, ids)),
        byte_tokens=sum(map(sp.is_byte, ids)), distinct_chars=len(counts),
        distinct_unknown=len(lost),
        lone_prefix_tokens=0 if sp.is_unknown(prefix) else ids.count(prefix),
    )


def _tests(test_texts: object) -> dict[str, list[str]]:
    if isinstance(test_texts, Mapping):
        tests = check_mapping_keys(test_texts, "test_texts", str, "a dict of name -> lines")
        if not tests:
            raise ValueError("test_texts must name at least one held-out text")
        return {k: _clean_lines(v, f"test_texts[{k!r}]") for k, v in tests.items()}
    return {"held-out": _clean_lines(test_texts, "test_texts")}


def compare_settings(train_texts: Sequence[str], test_texts: Sequence[str] | Mapping[str, Any],
                     base_options: Mapping[str, Any] | None = None,
                     variants: Mapping[str, Mapping[str, Any]] | None = None,
                     ) -> list[SettingResult]:
    """Train one model per variant (base_options updated by the variant) and measure each on every
    held-out text. `test_texts` is a list of lines or a dict name -> lines; `variants` maps a name
    to the options it changes ({"base": {}} if omitted).
    """
    base = check_options({} if base_options is None else base_options, "base_options")
    variants = check_mapping_keys({"base": {}} if variants is None else variants, "variants", str,
                                  "a dict of variant name -> options")
    if not variants:
        raise ValueError("variants must hold at least one variant")
    changes = {k: check_options(v, f"variants[{k!r}]") for k, v in variants.items()}
    lines = _clean_lines(train_texts, "train_texts")
    tests = _tests(test_texts)

    def one(name: str) -> SettingResult:
        model = train(lines, {**base, **changes[name]}, name=name)
        rows = tuple(measure(model, t, test=k) for k, t in tests.items())
        return SettingResult(name, dict(changes[name]), model.processor.get_piece_size(),
                             alphabet_size(model), rows, model)

    # The variants are independent trainings, and SentencePiece lets go of Python while it trains,
    # so two threads train two variants at once; each training is still single-threaded, hence
    # reproducible. Its random generator is one global, so variants with their own seeds go one
    # by one.
    seeds = {merged.get("seed", BASE_OPTIONS["seed"]) for merged in
             ({**base, **change} for change in changes.values())}
    pool = ThreadPoolExecutor(max_workers=2 if len(seeds) == 1 else 1)
    try:
        return list(pool.map(one, changes))
    finally:
        pool.shutdown(cancel_futures=True)  # after Ctrl-C, no variant still waiting starts


def apply(model: Model, strings: Sequence[str]) -> list[Segmentation]:
    """What `model` does to each string: normalized form, pieces, ids and decode(encode(s))."""
    sp = check_type(model, "model", Model, "a Model").processor
    out = []
    for i, s in enumerate(check_str_list(strings, "strings")):
        check_utf8(s, f"strings[{i}]")
        ids = sp.encode(s)
        out.append(Segmentation(s, sp.normalize(s), tuple(sp.id_to_piece(ids)), tuple(ids),
                                sp.decode(ids)))
    return out


def nfkc_changes(model: Model, chars: str) -> list[tuple[str, str, str]]:
    """(char, what the model's normalizer makes of it, its Unicode name) for each char it changes:
    under nmt_nfkc the full-width ，！？（） and ＡＢ１２ become ASCII (。 and “” stay)."""
    sp = check_type(model, "model", Model, "a Model").processor
    rows = []
    for c in dict.fromkeys(check_str(chars, "chars")):
        n = sp.normalize(c)
        if model.options.get("add_dummy_prefix", True) and n.startswith("▁"):
            n = n[1:]  # the prefix is add_dummy_prefix's, not the normalizer's
        if n != c:
            rows.append((c, n, unicodedata.name(c, "?")))
    return rows


def chinese_corpora(every: int = 5) -> tuple[list[str], dict[str, list[str]]]:
    """Lu Xun plus Tatoeba to train on (Lu Xun alone has almost no digits or Latin letters for the
    settings to act on), and two held-out texts: every `every`-th Tatoeba sentence and FLORES-200
    zho_Hans (news and wiki prose, another domain)."""
    every = check_int(every, "every", low=2)
    luxun = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    tatoeba = [line for line in data.load_text("tatoeba_cmn").splitlines() if line.strip()]
    train_lines = luxun + [s for i, s in enumerate(tatoeba) if i % every != every - 1]
    held_out = [s for i, s in enumerate(tatoeba) if i % every == every - 1]
    flores = [line for line in data.load_parallel("zho_Hans") if line.strip()]
    return train_lines, {"tatoeba": held_out, "flores_zho": flores}
