"""The course's files: where the bundled ones are, proof that they are the files we think (each
is checked against the sha256 in data/PROVENANCE.md when it is read, so no notebook computes an
"honest number" on a file edited or truncated by accident), and the one way each to read and write
them: `read_utf8` (strict UTF-8, in chunks, naming a bad byte rather than guessing an encoding),
`read_json`, `write_atomically` (whole or not at all) and `file_sha256` (the one digest of a file).
The production path's `files` module adds the armour of long builds: groups, locks, cleanup.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import secrets
import site
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_choice, check_int, check_str, check_type

# Where a wheel's data files land, below the install prefix (pyproject.toml's data-files).
INSTALLED_DATA = Path("share", "tutorial-lib", "data")


def find_data_dir() -> Path:
    """The data directory: $TUTORIAL_DATA_DIR, else data/ beside the package (a clone or an
    editable install), else the copy a non-editable install (`pip install .`, a hub image) put
    under its prefix.

    A directory counts only if it holds PROVENANCE.md, so a stray site-packages/data/ of another
    package is never taken for ours. When nothing is found the clone's path is returned, and the
    first read names it in its error.
    """
    if os.environ.get("TUTORIAL_DATA_DIR"):
        return Path(os.environ["TUTORIAL_DATA_DIR"])
    package = Path(__file__).resolve().parent
    beside = package.parent / "data"
    # site-packages is lib/pythonX.Y/site-packages (POSIX) or Lib/site-packages (Windows) below
    # the prefix: --prefix, --user and /usr/local installs are all found by walking up from it.
    prefixes = [*package.parents[1:5], Path(sys.prefix), Path(site.getuserbase())]
    for candidate in [beside, *(prefix / INSTALLED_DATA for prefix in prefixes)]:
        if (candidate / "PROVENANCE.md").is_file():
            return candidate
    return beside


DATA_DIR = find_data_dir()
ENDOFTEXT = "<|endoftext|>"
CHUNK_BYTES = 1 << 20  # bytes read from a file at a time: memory stays small for a file of any size


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

# name, file, sha256 (as in data/PROVENANCE.md), language, licence, what it is
CORPORA: dict[str, Corpus] = {c.name: c for c in [
    Corpus("timemachine", "timemachine.txt",
           "8424dbd9532ac81f7e5f0b6add90e6952baea29158309d7d1bf3884f4e12c516",
           "en", "Public domain (H. G. Wells, 1895)", "The Time Machine, the D2L copy"),
    Corpus("tinystories", "tinystories_v2_sample.txt",
           "e39dc862155e2ba77f77968bd04ff15555c0d42c0cf14dc23d2ace659abee8fe",
           "en", "CDLA-Sharing-1.0 (Eldan & Li 2023)",
           "1,727 TinyStories V2 stories, <|endoftext|>-separated"),
    Corpus("luxun", "zh_luxun_nahan_panghuang_gushixinbian.txt",
           "a29830c841fabbcbfb505072d7fe8e3ccd97514827c0db79a3083f1374649967",
           "zh", "Public domain (Lu Xun, d. 1936)", "鲁迅《呐喊》《彷徨》《故事新编》"),
    Corpus("tatoeba_cmn", "zh_tatoeba_cmn_sentences.txt",
           "4f64ff8c43c59287ebfb00c7d1a0c100714a2d5e4270154b82483faeed4ae45d",
           "zh", "CC-BY 2.0 FR (Tatoeba.org)", "28,447 short Chinese sentences, one per line"),
    Corpus("tatoeba_cmn_attribution", "zh_tatoeba_cmn_sentences.attribution.txt",
           "742171ac9460fd7403f5c943a6e3c42ef135a06b4111bac25d4e24f9ea680d06",
           "en", "CC-BY 2.0 FR (Tatoeba.org)", "per-sentence attribution for tatoeba_cmn"),
    Corpus("code_sample", "code_sample.txt",
           "e54b9fad10507efc149571d744b6e29f9f8069f2ab1d829c14b672f12e69c559",
           "code", "MIT (this course's own code)",
           "a snapshot of three of the course's Python source files"),
] + [
    Corpus(f"flores/{lang}", f"parallel/{lang}.txt", digest, lang, _FLORES_LICENSE,
           f"FLORES-200 devtest, 1,012 aligned sentences ({lang})")
    for lang, digest in _FLORES.items()
]}


# OpenAI's GPT-2 tokenizer: token -> id, and the merges in rank order (Hugging Face calls them
# vocab.json and merges.txt). The digests are the ones tiktoken checks when it downloads them.
GPT2_FILES = {
    "gpt2/encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "gpt2/vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}


# The packing chapters' tokenizer (bpe/course_tokenizer.py): tools/train_course_tokenizer.py.
COURSE_TOKENIZER = ("tokenizers/course_bpe_4096.json",
                    "9abb711fbc7fd94d63880c4a243633cffb97f032ccc54cf68e7c5ce9d7d25920")
# Its golden vectors (contract/golden.py), written by
# `python -m tutorial_pipeline.golden write --tokenizer course <path>`.
COURSE_GOLDEN = ("tokenizers/course_bpe_4096.golden.jsonl",
                 "f5b7a2d2c41967fa55041ec4252018a36231730aaa8212538b4edbc2143b9a42")


def list_corpora() -> list[Corpus]:
    """All bundled corpora, in a fixed order (the order notebooks list them in)."""
    return list(CORPORA.values())


def corpus_path(name: str) -> Path:
    """Path of a bundled corpus after checking it exists and its sha256 matches PROVENANCE.md."""
    _corpus_bytes(name)
    return CORPORA[name].path


def load_text(name: str) -> str:
    """The whole corpus as one str (all bundled files are UTF-8, LF line endings, no BOM).

    The file is read once, so the bytes that are decoded are the bytes whose sha256 was checked.
    """
    return _corpus_bytes(name).decode("utf-8")


def gpt2_files() -> tuple[Path, Path]:
    """Paths of OpenAI's GPT-2 `encoder.json` and `vocab.bpe`, after checking their sha256.

    `formats.from_gpt2_files(*data.gpt2_files())` builds GPT-2's tokenizer from them.
    """
    for filename, digest in GPT2_FILES.items():
        checked_bytes(DATA_DIR / filename, digest, f"GPT-2 file {filename!r}")
    encoder_json, vocab_bpe = (DATA_DIR / filename for filename in GPT2_FILES)
    return encoder_json, vocab_bpe


def course_tokenizer_path() -> Path:
    """Path of the packing chapters' tokenizer file, after checking its sha256."""
    filename, digest = COURSE_TOKENIZER
    checked_bytes(DATA_DIR / filename, digest, f"tokenizer file {filename!r}")
    return DATA_DIR / filename


def course_golden_path() -> Path:
    """Path of the course tokenizer's golden vectors file, after checking its sha256."""
    filename, digest = COURSE_GOLDEN
    checked_bytes(DATA_DIR / filename, digest, f"golden vectors file {filename!r}")
    return DATA_DIR / filename


def _corpus_bytes(name: str) -> bytes:
    check_choice(check_str(name, "name"), "name", sorted(CORPORA))
    corpus = CORPORA[name]
    return checked_bytes(corpus.path, corpus.sha256, f"corpus {name!r}")


def checked_bytes(path: Path, sha256: str, what: str, fix: str = "restore it from data/ in git"
                  ) -> bytes:
    """The bytes of `path` if their sha256 is the recorded one; else a ValueError saying `fix`."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{what} is missing: expected {path} (see data/PROVENANCE.md; set TUTORIAL_DATA_DIR "
            "to the course's data/ directory if it lives elsewhere)"
        ) from None
    # The bytes already read are hashed, not the file again (`file_sha256`): read once, the bytes
    # that were checked are the bytes the caller decodes, even if the file is replaced meanwhile.
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ValueError(f"{what} at {path} is not the file this course was written against: "
                         f"sha256 {digest}, expected {sha256} ({fix})")
    return data


# ------------------------------------------------------------------------------------------------
# Reading and writing the course's files


def read_utf8(path: str | os.PathLike, chunk_bytes: int = CHUNK_BYTES,
              on_read: Callable[[bytes], object] | None = None, *, start: int = 0,
              end: int | None = None) -> Iterator[str]:
    """The text of `path` in pieces, decoded as strict UTF-8, `chunk_bytes` bytes read at a time.

    A character cut between two reads is completed by the next one (an incremental decoder). A byte
    that is not UTF-8 raises ValueError naming the file and the byte's offset: guessing an encoding
    would put wrong text into a tokenizer or a dataset. `on_read(chunk)` is given the bytes of each
    read, once they decoded: a progress bar counts them, a checksum hashes them, and the file is
    still read only once. `start` and `end` read only the bytes [start, end) (a shard of the file:
    they must be where characters start); offsets in errors stay the file's.
    """
    path = check_path(path, "path")
    chunk_bytes = check_int(chunk_bytes, "chunk_bytes", low=1)
    start = check_int(start, "start", low=0)
    end = None if end is None else check_int(end, "end", low=start)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = start  # bytes of the file before this chunk
    with open(path, "rb") as f:
        f.seek(start)
        # Each read is decoded as far as it goes; a character it cuts waits in the decoder.
        while chunk := f.read(chunk_bytes if end is None else min(chunk_bytes, end - offset)):
            pending = len(decoder.getstate()[0])  # bytes of a character the last read cut
            try:
                yield decoder.decode(chunk)
            except UnicodeDecodeError as e:  # e.object = the pending bytes, then this chunk
                bad = e.object[e.start : e.start + 1]
                raise ValueError(f"{path} is not UTF-8 text: byte {offset - pending + e.start} "
                                 f"({bad!r}) is {e.reason}; convert the file to UTF-8 first"
                                 ) from None
            offset += len(chunk)
            if on_read is not None:
                on_read(chunk)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as e:  # e.object = the bytes of the cut character
            raise ValueError(f"{path} is not UTF-8 text: it ends inside a character that starts at "
                             f"byte {offset - len(e.object) + e.start} ({e.reason})") from None


def read_json(path: str | os.PathLike) -> Any:
    """The JSON value in the UTF-8 file `path`, read with `read_utf8`; text that is not JSON, or
    that nests too deeply for the parser, is a ValueError naming the file."""
    text = "".join(read_utf8(path))
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path} is not a JSON file this code can read: {e}") from None


def write_atomically(path: str | os.PathLike, content: str | bytes) -> None:
    """Write `content` (text, as UTF-8, or bytes as they are) to `path` so that the file is whole
    or absent, never half-written.

    It goes to a temporary file beside the target, synced, then renamed over it: `os.replace`
    is atomic within one file system, so a reader sees the old file (or none) until the rename and
    the new one after it, and a crash or Ctrl-C mid-write leaves the old file. On any failure the
    temporary file is removed. Like `open()`, the new file gets 0o666 minus the umask (an existing
    file keeps its mode), a symlink is followed (the file it points to is replaced, the link stays)
    and "\\n" is written as "\\n" on every system.
    """
    check_type(content, "content", (str, bytes), "the text or bytes to write")
    target = Path(os.path.realpath(check_path(path, "path")))
    # the name's first 24 characters only: at most 118 bytes in all, so any name that fits, fits
    tmp = target.with_name(f".{target.name[:24]}.{secrets.token_hex(8)}.tmp")
    # O_EXCL: never write into a file found there; O_BINARY: no newline translation on Windows
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if target.exists():
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
            f.write(content.encode("utf-8") if isinstance(content, str) else content)
            f.flush()
            os.fsync(f.fileno())  # the bytes are on disk before the name points to them
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes, read CHUNK_BYTES at a time: the course's one digest of a whole
    file (golden vectors in a tokenizer's manifest, a corpus file's digest, the shipped files).

    Bytes hashed while they are read or written for another use are not hashed again through this:
    `checked_bytes` hashes the bytes it hands on (read once, the checked bytes are the used ones),
    and the pipeline's `dataset_manifest.Checksum` hashes a dataset's bytes as they stream past.
    """
    digest = hashlib.sha256()
    with open(check_regular_file(path, "path"), "rb") as f:
        while block := f.read(CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def split_documents(text: str, separator: str = ENDOFTEXT) -> list[str]:
    """Split a corpus into documents on `separator`, trimming the newlines around each one.

    TinyStories stores `story\\n<|endoftext|>\\n`; empty pieces (the file's tail) are dropped.
    """
    check_str(text, "text")
    check_str(separator, "separator", non_empty=True)
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
    "arb_Arab": "阿拉伯语", "deu_Latn": "德语", "eng_Latn": "英语", "fra_Latn": "法语",
    "hin_Deva": "印地语", "jpn_Jpan": "日语", "kor_Hang": "韩语", "rus_Cyrl": "俄语",
    "spa_Latn": "西班牙语", "tha_Thai": "泰语", "vie_Latn": "越南语", "zho_Hans": "简体中文",
}
