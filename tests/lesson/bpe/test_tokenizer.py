"""The Tokenizer class: encode (against tiktoken and the textbook loop), decode, bad input."""

import pickle
from itertools import islice, repeat

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe import corpus
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import TIE_BREAK, train_tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.stream_encode import encode_iterable

EOT = "<|endoftext|>"
BYTES = {i: bytes([i]) for i in range(256)}


def toy(specials=()):
    """Bytes at ids 0..255, merges ab, bc, abc at ids 999, 998, 997 (not 256 + rank), specials from
    id 500."""
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")]
    vocab = BYTES | {999 - k: a + b for k, (a, b) in enumerate(merges)}
    vocab |= {500 + k: special.encode() for k, special in enumerate(specials)}
    return Tokenizer(vocab, merges, specials)


def textbook_encode(tok: Tokenizer, text: str) -> list[int]:
    """minbpe's loop, written for clarity: merge every occurrence of the lowest-ranked pair until
    none is left."""
    rank = {pair: r for r, pair in enumerate(tok.merges)}
    id_of = {token: i for i, token in tok.vocab.items()}
    ids = []
    for piece in regex.findall(tok.pattern, text):
        parts = [bytes([b]) for b in piece.encode()]
        while len(parts) > 1:
            best = min(zip(parts, parts[1:]), key=lambda pair: rank.get(pair, float("inf")))
            if best not in rank:
                break
            merged, i = [], 0
            while i < len(parts):
                if tuple(parts[i : i + 2]) == best:
                    merged.append(best[0] + best[1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        ids += [id_of[p] for p in parts]
    return ids


# ----------------------------------------------------------------------------------------- encoding


def test_merges_apply_by_rank_and_ids_come_from_the_vocab():
    tok = toy()
    # "abc": (a, b) has rank 0, so "ab" forms first and then (ab, c); the ids are the vocab's, not
    # 256 + rank.
    assert tok.encode_ordinary("abc") == [997]
    assert tok.encode_ordinary("bc") == [998]
    assert tok.encode_ordinary("xabcab") == [ord("x"), 997, 999]
    assert tok.decode([ord("x"), 997, 999]) == "xabcab"
    assert tok.token_bytes(997) == b"abc"


def test_two_merges_may_make_the_same_token():
    # Byte strings name the tokens, so (a, bc) and (ab, c) both make the one token "abc".
    merges = [(b"b", b"c"), (b"a", b"b"), (b"a", b"bc"), (b"ab", b"c")]
    tok = Tokenizer(BYTES | {300: b"bc", 301: b"ab", 302: b"abc"}, merges)
    assert tok.encode_ordinary("abc abcab") == [302, ord(" "), 302, 301]
    assert tok.decode([302, 301]) == "abcab"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdefghilnorstuw .,'!\n人工智能的我们了是不", max_size=80))
def test_fast_merge_loop_equals_the_textbook_loop(trained, text):
    assert trained.encode_ordinary(text) == textbook_encode(trained, text)


@pytest.mark.parametrize("name", [c.name for c in data.list_corpora()])
def test_same_ids_as_tiktoken_on_every_bundled_corpus(gpt4, cl100k, name):
    text = data.load_text(name)
    assert gpt4.encode_ordinary(text) == cl100k.encode_ordinary(text)


def test_same_ids_as_tiktoken_with_special_tokens_allowed(gpt4, cl100k):
    text = data.load_text("tinystories")
    ids = gpt4.encode(text, allowed_special="all")
    assert ids == cl100k.encode(text, allowed_special="all")
    assert ids.count(gpt4.special_tokens[EOT]) == 1727  # one per story
    assert gpt4.decode(ids) == text


# Characters the running Python's Unicode tables call unassigned (Cn) are left out: the regex
# module and tiktoken's fancy-regex each ship their own, newer Unicode version, and may class such a
# character differently (the regex module calls U+3D000 a letter, tiktoken does not), so parity
# there is a matter of Unicode versions.
@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cn", "Cs"))))
def test_roundtrip_and_tiktoken_parity_on_arbitrary_text(gpt4, cl100k, text):
    # st.text() draws from all of Unicode but lone surrogates: emoji, combining marks, CJK, controls
    ids = gpt4.encode_ordinary(text)
    assert gpt4.decode(ids, errors="strict") == text
    assert ids == cl100k.encode_ordinary(text)


@pytest.mark.parametrize("text", ["e\u0301 \u0915\u094d\u0937 👍🏽 👨‍👩‍👧 \x00\x1b\u200d "
                                  "中文\u3000字",
                                  "\r\n\t \u00a0 ", "<|endoftext|", "<|endoftext|>",
                                  "x<|endoftext|><|fim_prefix|>y"])
def test_hard_unicode_and_special_look_alikes_stay_plain_text(gpt4, cl100k, text):
    ids = gpt4.encode_ordinary(text)
    assert ids == cl100k.encode_ordinary(text)
    assert not set(ids) & set(gpt4.special_tokens.values())
    assert gpt4.decode(ids) == text


def test_encode_refuses_special_tokens_it_was_not_allowed(gpt4, cl100k):
    text = "a<|endoftext|>b<|fim_prefix|>"
    with pytest.raises(ValueError, match=r"'<\|endoftext\|>' at index 1.*allowed_special"):
        gpt4.encode(text)
    with pytest.raises(ValueError, match=r"<\|fim_prefix\|>"):
        gpt4.encode(text, allowed_special={EOT})
    both = {EOT, "<|fim_prefix|>"}
    assert gpt4.encode(text, allowed_special=both) == cl100k.encode(text, allowed_special=both)
    assert gpt4.encode(text, allowed_special="all")[1] == 100257
    assert gpt4.encode("no specials here") == gpt4.encode_ordinary("no specials here")


def test_longest_special_token_wins():
    tok = toy(specials=["<a>", "<a><a>"])
    assert tok.encode("<a><a><a>", allowed_special="all") == [501, 500]


def test_lone_surrogates_are_refused_not_replaced(gpt4):
    with pytest.raises(ValueError, match="lone surrogate '\\\\ud800'"):
        gpt4.encode_ordinary("ok \ud800 no")
    with pytest.raises(ValueError, match="lone surrogate"):
        list(encode_iterable(gpt4, ["ok ", "\udcff"]))


# ---------------------------------------------------------------------------------- encode_to_numpy


def test_encode_to_numpy_gives_uint32_like_tiktoken(gpt4, cl100k):
    ids = gpt4.encode_to_numpy("hello world")
    assert type(ids) is np.ndarray and ids.dtype == np.uint32 and ids.ndim == 1
    assert ids.dtype == cl100k.encode_to_numpy("hello world").dtype
    assert gpt4.encode_to_numpy("").shape == (0,)


@pytest.mark.parametrize("name", ["tinystories", "luxun", "tatoeba_cmn", "flores/hin_Deva"])
def test_encode_to_numpy_equals_encode_and_tiktoken_on_corpora(gpt4, cl100k, name):
    text = data.load_text(name)
    ids = gpt4.encode_to_numpy(text, allowed_special="all")
    assert ids.tolist() == gpt4.encode(text, allowed_special="all")
    assert np.array_equal(ids, cl100k.encode_to_numpy(text, allowed_special="all"))


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cn", "Cs"))))
def test_encode_to_numpy_equals_encode_and_tiktoken_on_any_text(gpt4, cl100k, text):
    if any(special in text for special in gpt4.special_tokens):  # hypothesis also tries our literals
        with pytest.raises(ValueError, match="allowed_special does not allow"):
            gpt4.encode_to_numpy(text)
        return
    ids = gpt4.encode_to_numpy(text)
    assert ids.tolist() == gpt4.encode(text)
    assert np.array_equal(ids, cl100k.encode_to_numpy(text))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", " the", "\n", "中文", "。", EOT, "<|pad|>", "<|pad", "'ll",
                                 "12345"]), max_size=20).map("".join))
def test_encode_to_numpy_with_special_tokens(trained, text):
    ids = trained.encode_to_numpy(text, allowed_special="all")
    assert ids.tolist() == trained.encode(text, "all")


def test_encode_to_numpy_refuses_what_encode_refuses(gpt4):
    with pytest.raises(ValueError, match=r"'<\|endoftext\|>' at index 1.*allowed_special"):
        gpt4.encode_to_numpy("a<|endoftext|>b")
    with pytest.raises(ValueError, match="lone surrogate '\\\\ud800'"):
        gpt4.encode_to_numpy("ok \ud800 no")
    with pytest.raises(ValueError, match="allowed_special must be 'all' or a set"):
        gpt4.encode_to_numpy("x", allowed_special="<|endoftext|>")
    with pytest.raises(TypeError, match="text must be a str"):
        gpt4.encode_to_numpy(b"bytes")


def test_encode_to_numpy_refuses_ids_beyond_uint32():
    tok = Tokenizer(BYTES | {1 << 32: b"ab"}, [(b"a", b"b")])
    assert tok.encode("ab") == [1 << 32]
    with pytest.raises(ValueError, match="uint32 ids, but this tokenizer has ids up to 4294967296; "
                                         "use encode"):
        tok.encode_to_numpy("ab")


# ---------------------------------------------------------------------------------- encode_iterable

# Text that is hard to cut: whitespace runs (\s+(?!\S), \s++$), CR/LF, digits (groups of 3 or 2),
# letters runs, contractions and their halves, CJK, combining marks, emoji, special tokens, their
# prefixes and suffixes.
FRAGMENTS = [" ", "  ", "   ", "\n", "\n\n", "\r\n", "\t", "\u00a0", "\u3000", "a", "Hello",
             "world", "'", "'s", "'ll", "'L", "s", "l", "ve", "1", "23", "4567", "中文", "你好",
             "。", "，", "!", "...", "é", "e\u0301", "🙂", "👍🏽", EOT, "<|endof", "<|", "|>",
             "text|>", "<", "<|fim_prefix|>", "<a>", "<a><a>"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
def test_encode_ordinary_never_makes_special_tokens(gpt4, text):
    ids = gpt4.encode_ordinary(text)
    assert not set(ids) & set(gpt4.special_tokens.values())
    assert gpt4.decode(ids, errors="strict") == text


@pytest.fixture(scope="module")
def by_pattern(gpt4):
    """The cl100k vocabulary split three ways, to cover every bundled pattern's look-ahead."""
    others = [("gpt2", GPT2_PATTERN), ("nanochat", NANOCHAT_PATTERN)]
    return {name: Tokenizer(gpt4.vocab, gpt4.merges, gpt4.special_tokens, pattern)
            for name, pattern in others} | {"gpt4": gpt4}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30), st.data())
def test_encode_iterable_equals_encode_on_any_chunking(by_pattern, fragments, draw):
    text = "".join(fragments)
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    chunks = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    for tok in [*by_pattern.values(), toy(specials=["<a>", "<a><a>", "a>"])]:
        streamed = list(encode_iterable(tok, chunks, allowed_special="all"))
        assert streamed == tok.encode(text, allowed_special="all")


def test_encode_iterable_on_a_file_is_lazy_and_exact(gpt4, tmp_path):
    text = data.load_text("luxun")[:50_000] + EOT + data.load_text("tinystories")[:50_000]
    path = tmp_path / "mixed.txt"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as f:
        streamed = list(encode_iterable(gpt4, f, allowed_special={EOT}))
    assert streamed == gpt4.encode(text, allowed_special={EOT})
    endless = encode_iterable(gpt4, repeat("Once upon a time, 从前有座山。\n"))
    # an unbounded stream is fine: nothing waits for the end
    assert len(list(islice(endless, 10_000))) == 10_000


def test_encode_iterable_refuses_disallowed_special_tokens_and_bad_chunks(gpt4):
    with pytest.raises(ValueError, match="allowed_special"):
        list(encode_iterable(gpt4, ["a <|endof", "text|> b"]))
    with pytest.raises(TypeError, match="each chunk"):
        list(encode_iterable(gpt4, ["ok", b"bytes"]))
    with pytest.raises(TypeError, match="iterable of str"):
        encode_iterable(gpt4, "a single str")
    with pytest.raises(TypeError, match="allowed_special"):
        encode_iterable(gpt4, ["x"], allowed_special=None)  # checked at the call, not at next()


# ----------------------------------------------------------------------------------------- decoding


def test_decode_error_policies(gpt4):
    ids = gpt4.encode_ordinary("中")  # one Han character, 3 bytes, one token
    assert len(ids) == 1
    # its first byte alone
    cut = [t for t in range(256) if gpt4.token_bytes(t) == "中".encode()[:1]]
    assert gpt4.decode(ids + cut + ids) == "中\ufffd中"
    assert gpt4.decode(ids + cut, errors="backslashreplace") == "中\\xe4"
    with pytest.raises(ValueError, match=r"at byte 3, in ids\[1\] = .* b'\\xe4'"):
        gpt4.decode(ids + cut + ids, errors="strict")
    assert gpt4.decode_bytes(ids + cut) == "中".encode() + b"\xe4"
    with pytest.raises(ValueError, match="errors must be one of"):
        gpt4.decode(ids, errors="ignore")


def test_decode_rejects_unknown_and_non_int_ids(gpt4):
    # 100256 is an unused id of cl100k
    with pytest.raises(ValueError, match=r"ids\[1\] = 100256 is not a token id"):
        gpt4.decode([1, 100256])
    with pytest.raises(ValueError, match="-1"):
        gpt4.decode([-1])
    with pytest.raises(TypeError, match=r"ids\[0\] must be an int, got float 1.5"):
        gpt4.decode([1.5])
    with pytest.raises(TypeError, match=r"ids must be a list of int, got str '123'"):
        gpt4.decode("123")
    with pytest.raises(ValueError, match="token_id 10000000"):
        gpt4.token_bytes(10_000_000)
    with pytest.raises(TypeError, match="token_id must be an int, got bool True"):
        gpt4.token_bytes(True)
    assert gpt4.token_bytes(100257) == EOT.encode() == gpt4.token_bytes(np.int64(100257))
    assert gpt4.decode(iter([100257])) == EOT


@pytest.mark.parametrize("method", ["decode", "decode_bytes"])
def test_decode_takes_one_row_of_ids_and_nothing_else(gpt4, method):
    decode = getattr(gpt4, method)
    ids = gpt4.encode_ordinary("hello 世界")
    assert decode(np.array(ids)) == decode(tuple(ids)) == decode(ids)  # a 1-D numpy row is fine
    with pytest.raises(TypeError, match=r"ids\[1\] must be an int, got bool True"):
        decode([ids[0], True])  # True is not token 1
    with pytest.raises(ValueError, match="ids must be 1-D .* 2 dimensions"):
        decode(np.array([ids, ids]))  # a batch of rows is not one row
    with pytest.raises(ValueError, match="ids must be 1-D .* 0 dimensions"):
        decode(np.int64(ids[0]))
    with pytest.raises(TypeError, match=r"ids\[0\] must be an int, got list"):
        decode([ids, ids])


# ---------------------------------------------------------------------------------------- bad input


def test_encode_rejects_bad_arguments(gpt4):
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        gpt4.encode(b"bytes")
    with pytest.raises(TypeError, match="text must be a str, got NoneType"):
        gpt4.encode_ordinary(None)
    with pytest.raises(TypeError, match="allowed_special must be 'all' or a set of str, got int"):
        gpt4.encode("x", allowed_special=5)
    with pytest.raises(ValueError, match="for one token write"):
        gpt4.encode("x", allowed_special=EOT)
    with pytest.raises(ValueError, match="not special tokens"):
        gpt4.encode("x", allowed_special={"<|nope|>"})


BASE_VOCAB = BYTES | {999: b"ab", 998: b"abc"}


@pytest.mark.parametrize("change, error, message", [
    (dict(special_tokens=["<s>", "<s>"], vocab=BASE_VOCAB | {500: b"<s>"}), ValueError, "distinct"),
    (dict(special_tokens=[""]), ValueError, "empty string"),
    (dict(special_tokens="<s>"), TypeError, "special_tokens must be a collection of str"),
    (dict(special_tokens=["<s>"]), ValueError, "not in the vocab"),
    (dict(special_tokens=["ab"]), ValueError, "bytes of ordinary token 999"),
    (dict(vocab=BASE_VOCAB | {300: b"ab"}), ValueError, "both have the bytes"),
    (dict(vocab=BASE_VOCAB | {-1: b"zz"}), ValueError, "ints >= 0"),
    (dict(vocab=BASE_VOCAB | {300: "zz"}), TypeError,
     r"vocab\[300\] must be non-empty bytes, got str"),
    (dict(vocab=BASE_VOCAB | {"300": b"zz"}), TypeError, "a vocab id must be an int >= 0, got str"),
    (dict(vocab=BASE_VOCAB | {7: b""}), ValueError, "non-empty bytes"),
    (dict(vocab=list(BASE_VOCAB.values())), TypeError, "vocab must be a dict"),
    (dict(vocab={i: bytes([i]) for i in range(255)}, merges=[]), ValueError, "1 byte values"),
    (dict(merges=[(b"ab", b"c"), (b"a", b"b")]), ValueError, "nor made by an earlier merge"),
    (dict(merges=[(b"a", b"b"), (b"a", b"b")]), ValueError, "repeats an earlier merge"),
    (dict(merges=[(b"a", b"b"), (b"ab", b"c"), (b"a", b"x")]), ValueError, "not in the vocab"),
    (dict(merges=[(b"a", "b")]), TypeError, r"each part of merges\[0\] must be bytes, got str"),
    (dict(merges=[(b"a", b"b", b"c")]), ValueError,
     r"merges\[0\] must be a pair of bytes, got 3 items"),
    (dict(merges=[b"ab"]), TypeError, r"merges\[0\] must be a pair of bytes, got bytes"),
    (dict(merges=b"ab"), TypeError, "merges must be a list"),
    (dict(pattern="(unclosed"), ValueError, "not a valid regex"),
    (dict(metadata=[1]), TypeError, "metadata must be a dict or None, got list"),
])
def test_malformed_vocab_merges_and_specials_are_refused(change, error, message):
    args = dict(vocab=BASE_VOCAB, merges=[(b"a", b"b"), (b"ab", b"c")]) | change
    with pytest.raises(error, match=message):
        Tokenizer(**args)


@pytest.mark.parametrize("metadata, message", [
    ({"vocab_sha256": "x"}, "manifest's own keys"),
    ({"when": object()}, r"metadata\['when'\] is <object object at .* of type object"),
])
def test_metadata_the_manifest_cannot_hold_is_refused_by_it(metadata, message):
    tok = Tokenizer(BASE_VOCAB, [(b"a", b"b"), (b"ab", b"c")], metadata=metadata)  # only carried
    with pytest.raises(ValueError, match=message):
        manifest.manifest(tok)


def test_an_id_that_encoding_cannot_make_still_decodes():
    # 300 is neither a byte, a merge result nor a special token: like GPT-2's <|endoftext|> when not
    # named.
    tok = Tokenizer(BASE_VOCAB | {300: b"zz", 301: b"<s>"}, [(b"a", b"b"), (b"ab", b"c")], ["<s>"])
    assert tok.decode_only_ids == [300]
    assert repr(tok) == ("Tokenizer(vocab_size=1000, merges=2, special_tokens=['<s>'], "
                         "decode_only_ids=1)")
    assert tok.decode([300, 998]) == "zzabc" and tok.token_bytes(300) == b"zz"
    assert tok.encode("zz<s>", allowed_special="all") == [ord("z"), ord("z"), 301]
    assert repr(toy()) == "Tokenizer(vocab_size=1000, merges=3, special_tokens=[])"


# ------------------------------------------------------------------------------- training, pickling


def test_train_records_its_settings_and_is_reproducible(trained):
    texts = [data.load_text("tinystories")[:40_000], data.load_text("luxun")[:10_000]]
    # a one-shot iterator is fine
    again = train_tokenizer(iter(texts), 600, [EOT, "<|pad|>"], GPT4_PATTERN)
    assert manifest.manifest(again) == manifest.manifest(trained)
    header = manifest.manifest(trained)
    assert header["trainer"] == {"name": "tutorial_lib.tokenization.trainer.train_bpe",
                                   "vocab_size": 600, "pattern": GPT4_PATTERN,
                                   "special_tokens": [EOT, "<|pad|>"], "tie_break": TIE_BREAK}
    assert header["corpus_digest"] == corpus.corpus_digest(texts)
    assert trained.vocab_size == 600 and trained.special_tokens == {EOT: 256, "<|pad|>": 257}
    story = "Once upon a time, 我们看见了。" + EOT
    assert trained.decode(trained.encode(story, allowed_special="all")) == story


def test_pickle_rebuilds_the_same_tokenizer(trained):
    copy = pickle.loads(pickle.dumps(trained))  # e.g. sent to DataLoader worker processes
    assert (copy.vocab, copy.merges, copy.special_tokens, manifest.manifest(copy)) == \
           (trained.vocab, trained.merges, trained.special_tokens, manifest.manifest(trained))




def test_replace_changes_only_the_parts_named(gpt2):
    tok = gpt2  # from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    nfkc = tok.replace(normalization="NFKC")
    assert (nfkc.vocab, nfkc.merges, nfkc.special_tokens, nfkc.pattern, nfkc.metadata) == \
           (tok.vocab, tok.merges, tok.special_tokens, tok.pattern, tok.metadata)
    assert nfkc.normalization == "NFKC" and manifest.digest(nfkc) != manifest.digest(tok)
    assert manifest.digest(nfkc.replace(normalization="none")) == manifest.digest(tok)
    assert tok.replace(special_tokens=()).special_tokens == {}
