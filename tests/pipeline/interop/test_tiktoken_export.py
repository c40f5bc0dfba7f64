"""tiktoken_export: our Tokenizer as a tiktoken Encoding with our ids on every bundled corpus."""

import pytest

from tutorial_lib import data
from tutorial_pipeline.interop import tiktoken_export
from tutorial_lib.bpe.tiktoken_probe import class_members, tiktoken_matches
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe import formats
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.trainer import train_tokenizer

EOT, PAD = "<|endoftext|>", "<|pad|>"
CORPORA = [c.name for c in data.list_corpora()]
PATTERNS = ["gpt2", "gpt4", "nanochat"]


@pytest.fixture(scope="module")
def exported():
    texts = [data.load_text("tinystories")[:30_000], data.load_text("luxun")[:8_000]]
    out = {}
    for pattern in PATTERNS:
        ours = train_tokenizer(texts, 500, [EOT, PAD], pattern)
        out[pattern] = (ours, tiktoken_export.to_tiktoken(ours))
    return out


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("name", CORPORA)
def test_tiktoken_gives_our_ids_on_every_corpus(exported, pattern, name):
    ours, encoding = exported[pattern]
    text = data.load_text(name)[:10_000]
    assert encoding.encode(text, allowed_special="all") == ours.encode(text, allowed_special="all")
    assert encoding.encode_ordinary(text) == ours.encode_ordinary(text)


def test_the_encoding_holds_our_ids_and_special_tokens(exported):
    ours, encoding = exported["gpt4"]
    assert encoding.name == f"tutorial_lib_{manifest.digest(ours)[:12]}"
    assert encoding.n_vocab == ours.vocab_size and encoding._special_tokens == ours.special_tokens
    assert tiktoken_export.to_tiktoken(ours, "mine").name == "mine"
    with pytest.raises(ValueError, match="special token"):
        encoding.encode(EOT)  # tiktoken refuses special tokens in text unless allowed, like us


def test_cl100k_goes_back_to_its_own_ranks(gpt4, cl100k):
    encoding = tiktoken_export.to_tiktoken(gpt4, "cl100k_again")
    assert encoding._mergeable_ranks == cl100k._mergeable_ranks
    assert encoding._special_tokens == cl100k._special_tokens
    text = data.load_text("luxun")[:5_000]
    assert encoding.encode(text) == cl100k.encode(text)


def test_u0c5c_is_where_the_unicode_tables_differ(gpt4):
    """The regex module calls U+0C5C a letter, tiktoken's engine does not (pretokenize's docstring):
    the ids differ there, and the text comes back the same."""
    ours, encoding = gpt4, tiktoken_export.to_tiktoken(gpt4)
    text = "\u0c5c—you"
    assert encoding.encode_ordinary(text) != ours.encode_ordinary(text)
    assert encoding.decode(encoding.encode_ordinary(text)) == text == \
           ours.decode(ours.encode_ordinary(text))


def test_a_normalizing_tokenizer_is_refused():
    ours = train_tokenizer(["hello world"], 260, normalization="NFKC")
    with pytest.raises(ValueError, match="tiktoken has no normalization step"):
        tiktoken_export.to_tiktoken(ours)


def test_ids_out_of_merge_order_are_refused():
    vocab = {b: bytes([b]) for b in range(256)} | {300: b"ab", 299: b"abc"}
    ours = Tokenizer(vocab, [(b"a", b"b"), (b"ab", b"c")])
    with pytest.raises(ValueError, match="ids must follow merge order.*makes id 299"):
        tiktoken_export.to_tiktoken(ours)


def test_decode_only_ids_are_refused():
    gpt2 = formats.from_gpt2_files(*data.gpt2_files())  # <|endoftext|> not named special
    with pytest.raises(ValueError, match=r"ids \[50256\] are neither bytes"):
        tiktoken_export.to_tiktoken(gpt2)


def test_merges_tiktoken_would_not_follow_are_refused():
    """tiktoken joins any pair whose bytes are a token: with "bc" before "ab", our merge (ab, c)
    can never apply to "abc" (b is taken by bc), but tiktoken joins a + bc into abc."""
    vocab = {b: bytes([b]) for b in range(256)} | {256: b"bc", 257: b"ab", 258: b"abc"}
    ours = Tokenizer(vocab, [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")])
    with pytest.raises(ValueError, match=r"from merge 2 on, its ranks imply the merge \(b'a', b'bc'\)"):
        tiktoken_export.to_tiktoken(ours)


def test_a_bad_name_is_refused(exported):
    with pytest.raises(TypeError, match="name"):
        tiktoken_export.to_tiktoken(exported["gpt2"][0], 5)
    with pytest.raises(ValueError, match="name"):
        tiktoken_export.to_tiktoken(exported["gpt2"][0], "")


def test_tiktoken_matches_shows_what_its_regex_matched():
    assert tiktoken_matches(r"\p{L}", "a1\u0c5cb 你") == "ab你"  # U+0C5C is no letter for tiktoken
    assert tiktoken_matches(r"\p{N}", "") == ""
    with pytest.raises(ValueError, match="char_class must be a non-empty str"):
        class_members("")
