"""The bundled corpora: where they are, what they are, and proof that they are the files we think.

Every corpus is checked against the sha256 recorded in data/PROVENANCE.md before it is read, so a
notebook never computes an "honest number" on a file that was edited or truncated by accident.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(os.environ.get("TUTORIAL_DATA_DIR", Path(__file__).resolve().parent.parent / "data"))
ENDOFTEXT = "<|endoftext|>"


@dataclass(frozen=True)
class Corpus:
    name: str
    filename: str
    sha256: str
    language: str
    license: str
    description: str

    @property
    def path(self) -> Path:
        return DATA_DIR / self.filename


_FLORES_LICENSE = "CC-BY-SA-4.0 (FLORES-200, NLLB Team et al. 2022)"
_FLORES = {
    "arb_Arab": "ff09a52e63884e9b5bb1083780b58f37d3d14acb0c58c6b1f1f2544ecea12ff8",
    "deu_Latn": "9a1bfa90d153fedb7ff80047f4a63d493998888eddb056e8a28e24592f26e5f2",
    "eng_Latn": "612e9fbe87997617c0fa8fa8929654a4f49b728d96738112c2b86ef6a1d78d88",
    "fra_Latn": "82f5b000db419ef9254eea7857cce82943b361090942f17ed696e3dce2944f42",
    "hin_Deva": "5f5fd39acadca29fb044a0398e81869e48f37de979df086f2fad4a7d1fd2d015",
    "jpn_Jpan": "36b8e392ae9404a20e8448c731d16d957ac1b94588d97fb691128ae706b63606",
    "kor_Hang": "540972696230a56e888f1fbd04b7000135c436351f5e467f99ce67fdccd8df0f",
    "rus_Cyrl": "cdc706ed862d1d35d8d67cfda0b396766646885434958b18291aa760ff1bb59e",
    "spa_Latn": "40fcb836b49b0a461a14c00b8bce1f03113f8d2668132af424e74b2421d18ce9",
    "tha_Thai": "d9bed1bf963821eab20051b18674950f345b67b0d0925290eaa6836eb06e76ca",
    "vie_Latn": "86b70984f053cae5f5d554bc9e9d00397773b8325bed7e12e7695c2e61897cb0",
    "zho_Hans": "b30158b1b76f7cee08530d8127a9769f4512597c7eefe97ae1ccf630d5b6e7fd",
}

CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in [
        Corpus("timemachine", "timemachine.txt",
               "8424dbd9532ac81f7e5f0b6add90e6952baea29158309d7d1bf3884f4e12c516", "en",
               "Public domain (H. G. Wells, 1895)", "The Time Machine, the D2L copy"),
        Corpus("tinystories", "tinystories_v2_sample.txt",
               "e39dc862155e2ba77f77968bd04ff15555c0d42c0cf14dc23d2ace659abee8fe", "en",
               "CDLA-Sharing-1.0 (Eldan & Li 2023)", "1,727 TinyStories V2 stories, <|endoftext|>-separated"),
        Corpus("luxun", "zh_luxun_nahan_panghuang_gushixinbian.txt",
               "a29830c841fabbcbfb505072d7fe8e3ccd97514827c0db79a3083f1374649967", "zh",
               "Public domain (Lu Xun, d. 1936)", "鲁迅《呐喊》《彷徨》《故事新编》"),
        Corpus("tatoeba_cmn", "zh_tatoeba_cmn_sentences.txt",
               "4f64ff8c43c59287ebfb00c7d1a0c100714a2d5e4270154b82483faeed4ae45d", "zh",
               "CC-BY 2.0 FR (Tatoeba.org)", "28,447 short Chinese sentences, one per line"),
        Corpus("tatoeba_cmn_attribution", "zh_tatoeba_cmn_sentences.attribution.txt",
               "742171ac9460fd7403f5c943a6e3c42ef135a06b4111bac25d4e24f9ea680d06", "en",
               "CC-BY 2.0 FR (Tatoeba.org)", "per-sentence attribution for tatoeba_cmn"),
    ]
    + [Corpus(f"flores/{lang}", f"parallel/{lang}.txt", digest, lang, _FLORES_LICENSE,
              f"FLORES-200 devtest, 1,012 aligned sentences ({lang})") for lang, digest in _FLORES.items()]
}


def list_corpora() -> list[Corpus]:
    """All bundled corpora, in a fixed order (the order notebooks list them in)."""
    return list(CORPORA.values())


def corpus_path(name: str) -> Path:
    """Path of a bundled corpus after checking it exists and its sha256 matches PROVENANCE.md."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if name not in CORPORA:
        raise ValueError(f"name must be one of {sorted(CORPORA)}, got {name!r}")
    corpus = CORPORA[name]
    if not corpus.path.is_file():
        raise FileNotFoundError(f"corpus {name!r} is missing: expected {corpus.path} (see data/PROVENANCE.md)")
    digest = hashlib.sha256(corpus.path.read_bytes()).hexdigest()
    if digest != corpus.sha256:
        raise ValueError(f"corpus {name!r} at {corpus.path} was altered: sha256 {digest}, "
                         f"expected {corpus.sha256} (restore it from data/ in git)")
    return corpus.path


def load_text(name: str) -> str:
    """The whole corpus as one str (all bundled files are UTF-8, LF line endings, no BOM)."""
    return corpus_path(name).read_text(encoding="utf-8")


def split_documents(text: str, separator: str = ENDOFTEXT) -> list[str]:
    """Split a corpus into documents on `separator`, trimming the newlines around each one.

    TinyStories stores `story\\n<|endoftext|>\\n`; empty pieces (the file's tail) are dropped.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not isinstance(separator, str) or not separator:
        raise ValueError("separator must be a non-empty str")
    docs = (doc.strip("\n") for doc in text.split(separator))
    return [doc for doc in docs if doc.strip()]


def tinystories_documents() -> list[str]:
    """The 1,727 TinyStories stories as separate documents."""
    return split_documents(load_text("tinystories"))


def load_parallel(lang: str) -> list[str]:
    """The FLORES-200 devtest sentences of one language; line i means the same in every language."""
    return load_text(f"flores/{lang}").splitlines()


# Chinese names of the FLORES-200 languages bundled in data/parallel/, for chart labels.
LANGUAGE_NAMES = {
    "arb_Arab": "阿拉伯语", "deu_Latn": "德语", "eng_Latn": "英语", "fra_Latn": "法语", "hin_Deva": "印地语",
    "jpn_Jpan": "日语", "kor_Hang": "韩语", "rus_Cyrl": "俄语", "spa_Latn": "西班牙语", "tha_Thai": "泰语",
    "vie_Latn": "越南语", "zho_Hans": "简体中文",
}
