"""hf_json: our Tokenizer as a Hugging Face tokenizer.json and back, and GPT-2's tokenizer.json read.

Hugging Face must give our ids on every bundled corpus (the first 20,000 characters of each, special
tokens included) with `tokenizers` and with `transformers` (no torch), for GPT-2's, GPT-4's and
nanochat's split patterns; the normalizers must compute our forms except on the characters pinned
here (Unicode versions).
"""

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, normalizers, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from tutorial_lib import data
from tutorial_pipeline.interop import hf_json
from tutorial_lib.contract.normalize import FORMS, normalize, normalizer
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe import formats
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.trainer import train_tokenizer

EOT, PAD = "<|endoftext|>", "<|pad|>"
CORPORA = [c.name for c in data.list_corpora()]
PATTERNS = ["gpt2", "gpt4", "nanochat"]
EVERY_CHARACTER = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and c != 1]


def head(name, size=20_000):
    return data.load_text(name)[:size]


@pytest.fixture(scope="module")
def texts():
    return [data.load_text("tinystories")[:30_000], data.load_text("luxun")[:8_000]]


@pytest.fixture(scope="module")
def exported(texts, tmp_path_factory):
    """pattern -> (ours, tokenizers' Tokenizer, transformers' fast tokenizer, path), trained once."""
    out = {}
    for pattern in PATTERNS:
        ours = train_tokenizer(texts, 500, [EOT, PAD], pattern)
        path = hf_json.to_huggingface(ours, tmp_path_factory.mktemp(pattern) / "tokenizer.json")
        out[pattern] = (ours, HFTokenizer.from_file(str(path)),
                        PreTrainedTokenizerFast(tokenizer_file=str(path)), path)
    return out


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("name", CORPORA)
def test_tokenizers_and_transformers_give_our_ids_on_every_corpus(exported, pattern, name):
    ours, hf, fast, _ = exported[pattern]
    text = head(name)
    ids = ours.encode(text, allowed_special="all")
    assert hf.encode(text).ids == ids
    assert fast.encode(text) == ids
    assert hf.decode(ids, skip_special_tokens=False) == ours.decode(ids)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=30),
                          st.sampled_from([EOT, PAD, " 123456 ", "'S 'll\r\n\n  "])), max_size=8))
def test_our_ids_on_random_text_with_special_tokens(exported, pieces):
    text = "".join(pieces)
    for ours, hf, _, _ in exported.values():
        assert hf.encode(text).ids == ours.encode(text, allowed_special="all")


def test_cl100k_keeps_its_ids(gpt4, tmp_path):
    """cl100k's byte tokens are not ids 0..255, and it has gaps: the file keeps the ids as they are."""
    hf = HFTokenizer.from_file(str(hf_json.to_huggingface(gpt4, tmp_path / "cl100k.json")))
    for name in CORPORA:
        text = head(name, 5_000)
        assert hf.encode(text).ids == gpt4.encode(text, allowed_special="all"), name
    assert hf.token_to_id(EOT) == 100257 and hf.token_to_id("!") == 0


def test_the_file_carries_the_contract_and_reads_back_to_the_same_digest(exported):
    for ours, _, _, path in exported.values():
        spec = json.loads(path.read_text(encoding="utf-8"))
        contract = spec["model"][hf_json.CONTRACT_KEY]
        assert contract["manifest"]["tokenizer_sha256"] == manifest.digest(ours)
        assert contract["pattern"] == ours.pattern
        back = hf_json.from_huggingface(path)
        assert manifest.digest(back) == manifest.digest(ours) and back.metadata == ours.metadata


@pytest.mark.parametrize("form", FORMS)
def test_round_trip_keeps_the_digest_for_every_normalization_form(texts, form, tmp_path):
    ours = train_tokenizer(texts, 300, [EOT], "gpt4", normalization=form)
    back = hf_json.from_huggingface(hf_json.to_huggingface(ours, tmp_path / "t.json"))
    assert (manifest.digest(back), back.normalization) == (manifest.digest(ours), form)
    text = "Ｓtraße ＡＢＣ１２３ ﬁne Café\u0301 " + texts[1][:300]
    hf = HFTokenizer.from_file(str(tmp_path / "t.json"))
    assert hf.encode(text).ids == ours.encode(text)


def test_an_edited_file_is_refused(exported, tmp_path):
    spec = json.loads(exported["gpt2"][3].read_text(encoding="utf-8"))
    spec["model"]["merges"][0], spec["model"]["merges"][1] = (spec["model"]["merges"][1],
                                                              spec["model"]["merges"][0])
    (tmp_path / "edited.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match="edited or damaged: its content gives merges_sha256"):
        hf_json.from_huggingface(tmp_path / "edited.json")
    del spec["model"][hf_json.CONTRACT_KEY]  # without the contract it is simply a tokenizer.json
    assert manifest.digest(hf_json.from_huggingface(_write(tmp_path, spec))) != manifest.digest(exported["gpt2"][0])


# --- the normalizers ------------------------------------------------------------------------------


def hf_normalizer(form):
    spec = json.loads(_empty_spec())
    spec["normalizer"] = hf_json.hf_normalizer(form)
    return HFTokenizer.from_str(json.dumps(spec)).normalizer


def hf_normalize(normalizer, texts):
    """Each text through a Hugging Face normalizer, in one call (texts joined by U+0001)."""
    if len(texts) == 1:
        return [normalizer.normalize_str(texts[0])]
    out = normalizer.normalize_str("\u0001".join(texts)).split("\u0001")
    assert len(out) == len(texts)
    return out


def differences(normalizer, ours):
    """The characters `normalizer` maps otherwise than the function `ours`."""
    return {c for c, hf in zip(EVERY_CHARACTER, hf_normalize(normalizer, EVERY_CHARACTER))
            if hf != ours(c)}


@pytest.fixture(scope="module")
def known_differences():
    """What Hugging Face computes from older Unicode tables: per character, NFC, NFKC and
    lower-casing (NFKC_casefold is NFKC, lower-casing and fixed replacements), and the combining
    classes of marks (each mark between "a" and U+0334, which has class 1)."""
    marks = [c for c in EVERY_CHARACTER if unicodedata.combining(c)]
    texts = ["a" + m + "\u0334" for m in marks]
    reordered = hf_normalize(normalizers.NFC(), texts)
    # normalize(c, form) is normalizer(form)(c): the function looked up once, not for each of the
    # 1,112,062 characters (the lookup checks `form` each time, most of the cost)
    nfc, nfkc = normalizer("NFC"), normalizer("NFKC")
    assert (nfc("\u212b"), nfkc("\ufb01")) == (normalize("\u212b", "NFC"), normalize("\ufb01", "NFKC"))
    return {"NFC": differences(normalizers.NFC(), nfc),
            "NFKC": differences(normalizers.NFKC(), nfkc),
            "lower": differences(normalizers.Lowercase(), str.lower),
            "marks": {m for m, t, hf in zip(marks, texts, reordered) if hf != normalize(t, "NFC")}}


def test_the_normalizers_differ_only_on_characters_new_to_unicode(known_differences):
    """Pinned by constraints.txt (tokenizers 0.23.3, Python 3.11's Unicode 14.0): characters of
    Unicode 12.1 to 14.0, which Hugging Face's normalization tables predate."""
    k = known_differences
    assert (len(k["NFC"]), len(k["NFKC"]), len(k["marks"])) == (0, 72, 98)
    assert "\u32ff" in k["NFKC"] and normalize("\u32ff", "NFKC") == "令和"  # Reiwa, Unicode 12.1
    assert len(k["lower"]) == 55 and {unicodedata.category(c) for c in k["lower"]} == {"Cn"}
    # Dives Akuru (Unicode 13.0): U+11935 U+11930 composes to U+11938 here, not in Hugging Face
    assert hf_normalize(normalizers.NFC(), ["\U00011935\U00011930"]) == ["\U00011935\U00011930"]
    assert normalize("\U00011935\U00011930", "NFC") == "\U00011938"


@settings(max_examples=100, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=40))
def test_the_normalizers_compute_our_forms(known_differences, text):
    late = set().union(*known_differences.values()) | {"\U00011930", "\U00011935"}
    if not set(text) & late:
        for form in ("NFC", "NFKC", "NFKC_casefold"):
            assert hf_normalize(_normalizer(form), [text]) == [normalize(text, form)], form


def _normalizer(form, cache={}):
    if form not in cache:
        cache[form] = hf_normalizer(form)
    return cache[form]


def test_casefold_is_more_than_lowercase():
    assert hf_normalize(_normalizer("NFKC_casefold"), ["Straße ΣΑΣ ꭰ ﬁ"]) == ["strasse σασ Ꭰ fi"]


# --- GPT-2's tokenizer.json, made with tokenizers from the bundled files --------------------------


@pytest.fixture(scope="module")
def gpt2_json(tmp_path_factory):
    encoder_json, vocab_bpe = data.gpt2_files()
    tokenizer = HFTokenizer(models.BPE.from_file(str(encoder_json), str(vocab_bpe)))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    path = tmp_path_factory.mktemp("gpt2") / "tokenizer.json"
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="module")
def gpt2_read(gpt2_json):
    return hf_json.from_huggingface(gpt2_json)


@pytest.mark.parametrize("name", CORPORA)
def test_gpt2s_tokenizer_json_gives_tiktokens_gpt2_ids(gpt2_read, tiktoken_gpt2, name):
    text = head(name, 20_000)
    assert gpt2_read.encode_ordinary(text) == tiktoken_gpt2.encode_ordinary(text)


def test_gpt2s_tokenizer_json_is_gpt2(gpt2_read):
    gpt2 = formats.from_gpt2_files(*data.gpt2_files())
    assert (gpt2_read.vocab, gpt2_read.merges, gpt2_read.pattern) == \
           (gpt2.vocab, gpt2.merges, hf_json.GPT2_PATTERN)
    assert gpt2_read.decode_only_ids == [50256]  # in the vocab, but not an added token


# --- what the import refuses ----------------------------------------------------------------------


def _empty_spec():
    return HFTokenizer(models.BPE(vocab={chr(b): i for i, b in enumerate(range(33, 127))},
                                  merges=[])).to_str()


def _write(tmp_path, spec):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _ours_spec():
    texts = ["hello world, 12345 你好"]
    return hf_json.to_spec(train_tokenizer(texts, 260, [EOT]))


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(model={"type": "WordPiece", "vocab": {}}), "model type 'WordPiece'"),
    (lambda s: s.update(model={"type": "Unigram", "vocab": []}), "model type 'Unigram'"),
    (lambda s: s["model"].update(byte_fallback=True), "byte_fallback=True"),
    (lambda s: s["model"].update(ignore_merges=True), "ignore_merges=True"),
    (lambda s: s.update(normalizer={"type": "Lowercase"}), "normalizer 'Lowercase'"),
    (lambda s: s.update(normalizer={"type": "Sequence", "normalizers": [
        {"type": "NFD"}, {"type": "StripAccents"}]}), r"normalizer \['NFD', 'StripAccents'\]"),
    (lambda s: s["pre_tokenizer"]["pretokenizers"].insert(0, {"type": "Digits",
                                                              "individual_digits": True}),
     r"pre-tokenizer steps \['Digits', 'Split', 'ByteLevel'\]"),
    (lambda s: s["pre_tokenizer"]["pretokenizers"].insert(0, s["pre_tokenizer"]["pretokenizers"][0]),
     r"\['Split', 'Split', 'ByteLevel'\].*pass pattern="),
    (lambda s: s.update(pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True,
                                       "use_regex": True}), "add_prefix_space"),
    (lambda s: s.update(post_processor={"type": "TemplateProcessing", "single": [], "pair": [],
                                        "special_tokens": {}}), "TemplateProcessing"),
    (lambda s: s["added_tokens"][0].update(lstrip=True), r"sets \['lstrip'\]"),
])
def test_what_our_model_lacks_is_refused_by_name(tmp_path, edit, message):
    spec = _ours_spec()
    del spec["model"][hf_json.CONTRACT_KEY]
    edit(spec)
    with pytest.raises(ValueError, match=message):
        hf_json.from_huggingface(_write(tmp_path, spec))


def test_a_vocab_outside_the_byte_alphabet_is_not_byte_level(tmp_path):
    spec = json.loads(_empty_spec())
    spec["model"]["vocab"]["hello world"] = 500
    spec["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
    with pytest.raises(ValueError, match="not in GPT-2's byte alphabet"):
        hf_json.from_huggingface(_write(tmp_path, spec))


def test_a_special_token_spelled_like_a_byte_level_token_is_refused():
    vocab = {b: bytes([b]) for b in range(256)} | {256: b" h", 257: b" hi", 258: "Ġhi".encode()}
    ours = Tokenizer(vocab, [(b" ", b"h"), (b" h", b"i")], ["Ġhi"])
    with pytest.raises(ValueError, match=r"both a special token\'s text and an ordinary token\'s byte-level form \(ids 257 and 258\)"):
        hf_json.to_spec(ours)


def test_a_malformed_file_is_a_value_error(tmp_path):
    spec = _ours_spec()
    spec["pre_tokenizer"] = "ByteLevel"
    with pytest.raises(ValueError, match="not a tokenizer.json this code can read"):
        hf_json.from_huggingface(_write(tmp_path, spec))
    (tmp_path / "tokenizer.json").write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="not a JSON file"):
        hf_json.from_huggingface(tmp_path / "tokenizer.json")


def test_casefold_after_lowercase_is_casefold():
    """What hf_normalizer's NFKC_casefold rests on, for every character Python knows."""
    folded = set(hf_json._folded_after_lowercase())
    assert len(folded) == 183
    for c in EVERY_CHARACTER:
        assert c.lower().casefold() == c.casefold()
    for c in folded:  # no cascade: a replacement holds nothing a later Replace would change
        assert not set(c.casefold()) & folded


@pytest.fixture(scope="module")
def casefolded(texts, tmp_path_factory):
    ours = train_tokenizer(texts, 400, [EOT], "gpt4", normalization="NFKC_casefold")
    path = hf_json.to_huggingface(ours, tmp_path_factory.mktemp("casefold") / "tokenizer.json")
    return ours, HFTokenizer.from_file(str(path))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=30),
                          st.sampled_from([EOT, "ＳＴＲＡẞＥ １２３ ﬁ", "ΣΑΣ ꭰ"])), max_size=6))
def test_a_casefolding_tokenizer_gives_our_ids_on_random_text(casefolded, known_differences,
                                                              pieces):
    ours, hf = casefolded
    text = "".join(pieces)
    if not set(text) & (set().union(*known_differences.values()) | {"\U00011930", "\U00011935"}):
        assert hf.encode(text).ids == ours.encode(text, allowed_special="all")


def test_bad_arguments_name_the_argument(exported, tmp_path):
    ours = exported["gpt2"][0]
    with pytest.raises(TypeError, match="path"):
        hf_json.to_huggingface(ours, 123)
    with pytest.raises((ValueError, FileNotFoundError), match="path"):
        hf_json.from_huggingface(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="pattern"):
        hf_json.from_huggingface(exported["gpt2"][3], pattern=5)
    with pytest.raises(TypeError, match="spec"):
        hf_json.from_spec("not a dict")
    assert list(tmp_path.iterdir()) == []  # nothing left behind
