"""OpenAI's GPT-2 files: the tokenizer built from them gives tiktoken's `gpt2` ids.

tiktoken is built here the way tiktoken_ext builds its `gpt2` encoding, from the bundled copies of the same
two files, so nothing is downloaded.
"""

import json

import pytest
import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks
from tiktoken_ext.openai_public import r50k_pat_str

from tutorial_lib import data
from tutorial_lib.tokenization.tokenizer import GPT2_BYTE_DECODER, Tokenizer

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def tiktoken_gpt2():
    encoder_json, vocab_bpe = data.gpt2_files()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local files as they are, keep no copy
        ranks = data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json),
                                                vocab_bpe_hash=data.GPT2_FILES["gpt2/vocab.bpe"],
                                                encoder_json_hash=data.GPT2_FILES["gpt2/encoder.json"])
    return tiktoken.Encoding("gpt2_offline", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={EOT: 50256}, explicit_n_vocab=50257)


@pytest.fixture(scope="module")
def gpt2():
    return Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[EOT])


@pytest.fixture(scope="module")
def gpt2_plain():
    """The files as they are: nothing named special, so <|endoftext|> is a decode-only id."""
    return Tokenizer.from_gpt2_files(*data.gpt2_files())


@pytest.mark.parametrize("name", [c.name for c in data.list_corpora()])
def test_same_ids_as_tiktoken_gpt2_on_every_bundled_corpus(gpt2_plain, tiktoken_gpt2, name):
    text = data.load_text(name)
    assert gpt2_plain.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


def test_vocab_and_merges_are_gpt2s(gpt2, tiktoken_gpt2):
    ranks = tiktoken_gpt2._mergeable_ranks
    assert gpt2.vocab == {i: token for token, i in ranks.items()} | {50256: EOT.encode()}
    assert gpt2.merges == Tokenizer.from_tiktoken(tiktoken_gpt2).merges  # the file's order is the rank order
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
    assert repr(gpt2_plain) == "Tokenizer(vocab_size=50257, merges=50000, special_tokens=[], decode_only_ids=1)"
    assert gpt2_plain.decode([50256, 40]) == EOT + "I"
    ids = gpt2_plain.encode("a story" + EOT)
    assert ids == gpt2_plain.encode_ordinary("a story" + EOT) == tiktoken_gpt2.encode_ordinary("a story" + EOT)
    assert 50256 not in ids and gpt2_plain.decode(ids) == "a story" + EOT
    loaded = Tokenizer.load(gpt2_plain.save(tmp_path / "gpt2.json"))
    assert (loaded.vocab, loaded.merges, loaded.decode_only_ids) == (gpt2_plain.vocab, gpt2_plain.merges, [50256])


# ------------------------------------------------------------------ the format, on small files in HF's naming

BYTE_CHAR = {b: c for c, b in GPT2_BYTE_DECODER.items()}


def write_files(tmp_path, tokens, merges_text):
    """vocab.json with the 256 bytes (ids 0..255), then `tokens`; merges.txt holding `merges_text`."""
    entries = {BYTE_CHAR[b]: b for b in range(256)}
    entries |= {token: 256 + k for k, token in enumerate(tokens)}
    (tmp_path / "vocab.json").write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges_text, encoding="utf-8")
    return tmp_path / "vocab.json", tmp_path / "merges.txt"


def test_small_files_in_hugging_face_naming(tmp_path):
    vocab_json, merges_txt = write_files(tmp_path, ["Ġt", "Ġth", "<s>"], "#version: 0.2\nĠ t\nĠt h\n")
    tok = Tokenizer.from_gpt2_files(vocab_json, merges_txt, special_tokens=["<s>"])
    assert tok.merges == [(b" ", b"t"), (b" t", b"h")] and tok.vocab[257] == b" th"
    assert tok.encode("a th<s>", allowed_special="all") == [ord("a"), 257, 258]
    assert tok.decode([0xC4, 256]) == "\ufffd t"  # the byte 0xC4, not the character Ä that stands for it
    headerless = write_files(tmp_path, ["Ġt"], "Ġ t")  # no version line, no final newline
    assert Tokenizer.from_gpt2_files(*headerless).merges == [(b" ", b"t")]
    windows = write_files(tmp_path, ["Ġt"], "#version: 0.2\r\nĠ t\r\n")  # "\r" is not in the alphabet: no doubt
    assert Tokenizer.from_gpt2_files(*windows).merges == [(b" ", b"t")]


@pytest.mark.parametrize("tokens, merges_text, message", [
    (["Ġt"], "Ġ t x\n", "line 1 must be two tokens and one space, got 'Ġ t x'"),
    (["Ġt"], "#version: 0.2\nĠ t\n\n", "line 3 must be two tokens and one space, got ''"),
    (["Ġt"], "Ġ t\t\n", r"'t\\t' holds '\\t', which is not in GPT-2's byte alphabet"),
    (["a b"], "", r"'a b' holds ' ', which is not in GPT-2's byte alphabet \(if it is a special token"),
    (["Ġt"], "Ġ q\n", "makes b' q', which is not in the vocab"),
])
def test_malformed_files_are_refused(tmp_path, tokens, merges_text, message):
    with pytest.raises(ValueError, match=message):
        Tokenizer.from_gpt2_files(*write_files(tmp_path, tokens, merges_text))


def test_bad_vocab_json_and_paths_are_refused(tmp_path):
    vocab_json, merges_txt = write_files(tmp_path, ["Ġt"], "Ġ t\n")
    for content, message in [("[1, 2]", "must hold one JSON object"), ('{"a": 1.5}', "must hold one JSON object"),
                             ('{"a": 0, "b": 0}', "gives id 0 to two tokens, the second is 'b'"),
                             ("{", "is not a JSON file this code can read")]:
        (tmp_path / "bad.json").write_text(content, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            Tokenizer.from_gpt2_files(tmp_path / "bad.json", merges_txt)
    (tmp_path / "latin1.txt").write_bytes("Ġ t".encode("latin-1", errors="replace") + b"\xff\n")
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        Tokenizer.from_gpt2_files(vocab_json, tmp_path / "latin1.txt")
    with pytest.raises(ValueError, match="vocab_json must be a non-empty path"):
        Tokenizer.from_gpt2_files("", merges_txt)
    with pytest.raises(TypeError, match="merges_txt must be a path"):
        Tokenizer.from_gpt2_files(vocab_json, None)
