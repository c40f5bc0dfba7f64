"""Golden vectors: every input exercises its category, the file regenerates byte for byte, and
each deliberate change to the tokenizer fails the categories it should (and changes the digest)."""

import hashlib
import json
import unicodedata

import pytest

from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.contract import golden, manifest
from tutorial_lib.contract.golden import CATEGORIES
from tutorial_lib.bpe.tokenizer import Tokenizer

COURSE = course_tokenizer.load()
# The inputs copied from a bundled corpus, and which one.
FROM_CORPUS = {
    "उन्होंने कहा": "flores/hin_Deva",
    "ไม่เป็นโรคเบาหวาน": "flores/tha_Thai",
    "我在年青时候也曾经做过许多梦，后来大半忘却了，": "luxun",
    "《Sesame\u3000and Lilies》": "luxun",
    'welcome!"  He waved': "tinystories",
    "فئران تبلغ من العمر 4 أشهر": "flores/arb_Arab",
    "但自己也并不以为可惜。": "luxun",
    "你用跑的。": "tatoeba_cmn",
    "现在是7点45分。": "tatoeba_cmn",
    "一英里大约是1600米。": "tatoeba_cmn",
    "2010这个数字里有两个零。": "tatoeba_cmn",
    "ขณะนี้เรามีหนูอายุ 4 เดือน": "flores/tha_Thai",
    "我々が飼っている生後4か月のマウス": "flores/jpn_Jpan",
    CATEGORIES[6].inputs[0]: "code_sample",
}


def rebuilt(tok, **changes):
    """`tok` with some constructor arguments changed."""
    parts = dict(vocab=tok.vocab, merges=tok.merges, special_tokens=list(tok.special_tokens),
                 pattern=tok.pattern, metadata=tok.metadata, normalization=tok.normalization)
    return Tokenizer(**(parts | changes))


@pytest.fixture(scope="module")
def bundled():
    return data.course_golden_path()


# ------------------------------------------------------------------------------ the categories


def test_every_input_belongs_to_its_category():
    for category in CATEGORIES:
        assert len(category.inputs) >= 3, category.name
        for x in category.inputs:
            assert category.belongs(x), (category.name, x)


def test_the_predicates_refuse_plain_text():
    plain = "hello world"
    assert not any(c.belongs(plain) for c in CATEGORIES)
    assert {c.name for c in CATEGORIES if c.belongs("但自己也并不以为可惜。")} == {"no_space_scripts"}
    assert [c.name for c in CATEGORIES if c.belongs(b"\xff")] == ["malformed"]
    assert not CATEGORIES[-1].belongs(b"valid")


def test_the_categories_are_the_eleven_of_the_contract():
    assert [c.name for c in CATEGORIES] == [
        "combining_marks", "compatibility", "repeated_whitespace", "right_to_left",
        "emoji_joiners", "no_space_scripts", "code_indentation", "digits", "urls",
        "control_tokens", "malformed"]
    assert all(c.description and "\n" not in c.description for c in CATEGORIES)


def test_the_inputs_said_to_be_real_text_are_in_their_corpus():
    inputs = {x for c in CATEGORIES for x in c.inputs}
    for text, corpus in FROM_CORPUS.items():
        assert text in inputs
        assert text in data.load_text(corpus), (corpus, text)


def test_the_full_width_look_alike_is_the_control_token_after_nfkc():
    assert unicodedata.normalize("NFKC", "＜｜endoftext｜＞") == data.ENDOFTEXT


# --------------------------------------------------------------------------------- the vectors


def test_a_text_vector_holds_n_ids_offsets_and_decoded_text():
    v = golden.vector(COURSE, "digits", "２０１６年")
    assert v["normalized"] == "２０１６年" and v["decoded"] == "２０１６年"
    assert v["ids"] == COURSE.encode_ordinary("２０１６年")
    assert len(v["offsets"]) == len(v["ids"]) and v["offsets"][-1][1] == len("２０１６年")
    nfkc = golden.vector(rebuilt(COURSE, normalization="NFKC"), "digits", "２０１６年")
    assert nfkc["normalized"] == nfkc["decoded"] == "2016年"
    assert nfkc["offsets"][-1][1] == len("２０１６年")  # spans are in the input, not in N(input)


def test_control_token_text_is_ordinary_unless_allowed():
    v = golden.vector(COURSE, "control_tokens", "one.<|endoftext|>two.", allowed_special=True)
    assert 256 not in v["ids"] and v["decoded"] == "one.<|endoftext|>two."
    assert v["ids_allowed_special"].count(256) == 1
    assert v["encode_error"]["type"] == "ValueError"
    assert "special token '<|endoftext|>' at index 4" in v["encode_error"]["message"]
    look_alike = golden.vector(COURSE, "control_tokens", "＜｜endoftext｜＞", allowed_special=True)
    assert look_alike["ids_allowed_special"] == look_alike["ids"]
    assert look_alike["encode_error"] is None


def test_malformed_inputs_record_the_error_or_every_decode_policy():
    v = golden.vector(COURSE, "malformed", "abc\udc80def")
    assert set(v) == {"category", "input", "error"}
    assert v["error"] == {"type": "ValueError",
                          "message": "text contains the lone surrogate '\\udc80' (in '\\udc80')"}
    cut = golden.vector(COURSE, "malformed", b"\xe4\xb8\xad\xe6")
    assert cut["decoded"] == "中\ufffd" and cut["decoded_backslashreplace"] == "中\\xe6"
    assert cut["error"] == {"type": "ValueError",
                            "message": "ids are not valid UTF-8 (unexpected end of data) at byte 3"}


def test_gpt2_byte_tokens_are_found_by_their_bytes_not_their_ids(gpt2):
    v = golden.vector(gpt2, "malformed", b"\xff")
    assert gpt2.vocab[v["ids"][0]] == b"\xff" and v["ids"] != [255]


# ------------------------------------------------------------------------ the file, regenerated


def test_the_bundled_file_is_what_write_gives_byte_for_byte(tmp_path, bundled):
    written = golden.write(COURSE, tmp_path / "golden.jsonl")
    assert written.read_bytes() == bundled.read_bytes()
    filename, digest = data.COURSE_GOLDEN
    assert golden.file_sha256(bundled) == digest
    assert digest in (data.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    assert filename in (data.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")


def test_the_bundled_file_passes_and_names_its_tokenizer(bundled):
    header, vectors = golden.read(bundled)
    assert header["tokenizer_sha256"] == manifest.digest(COURSE) and header["normalization"] == "none"
    assert list(header["categories"]) == [c.name for c in CATEGORIES]
    assert len(vectors) == sum(len(c.inputs) for c in CATEGORIES)
    assert golden.check(COURSE, bundled) == []


def test_the_file_is_json_lines_and_keeps_a_lone_surrogate_as_its_escape(bundled):
    raw = bundled.read_bytes()
    raw.decode("utf-8")  # valid UTF-8 although an input holds a lone surrogate
    assert b'"input": "abc\\udc80def"' in raw and "鲁迅".encode() in raw
    assert [json.loads(line)["category"] for line in raw.splitlines()[1:3]] == [
        "combining_marks"] * 2


def test_an_edited_vector_is_reported_field_by_field(tmp_path, bundled):
    lines = bundled.read_text(encoding="utf-8").splitlines()
    vector = json.loads(lines[1])
    vector["ids"] = vector["ids"][::-1]
    lines[1] = json.dumps(vector, ensure_ascii=False)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [failure] = golden.check(COURSE, edited)
    assert failure.category == "combining_marks" and list(failure.differs) == ["ids"]
    assert failure.differs["ids"] == (vector["ids"], vector["ids"][::-1])


# --------------------------------------------------- deliberate changes, and who catches them


def _merge_rank(tok, made):
    return next(k for k, (a, b) in enumerate(tok.merges) if a + b == made)


def test_dropping_one_merge_fails_only_the_scripts_without_spaces(bundled):
    k = _merge_rank(COURSE, "可惜".encode())  # no later merge uses it
    changed = rebuilt(COURSE, merges=COURSE.merges[:k] + COURSE.merges[k + 1:])
    assert manifest.digest(changed) != manifest.digest(COURSE)
    assert golden.failing_categories(golden.check(changed, bundled)) == {
        "no_space_scripts": ["ids", "offsets"]}


def test_reordering_one_merge_fails_only_code_indentation(bundled):
    k = _merge_rank(COURSE, b"st")  # from rank 225 to rank 0: "st" now beats every other pair
    merges = [COURSE.merges[k]] + COURSE.merges[:k] + COURSE.merges[k + 1:]
    changed = rebuilt(COURSE, merges=merges)
    assert manifest.digest(changed) != manifest.digest(COURSE)
    assert golden.failing_categories(golden.check(changed, bundled)) == {
        "code_indentation": ["ids", "offsets"]}


def test_another_split_pattern_fails_only_the_digits(bundled):
    changed = rebuilt(COURSE, pattern="gpt4")  # digits in groups of at most three
    assert manifest.digest(changed) != manifest.digest(COURSE)
    failures = golden.check(changed, bundled)
    assert golden.failing_categories(failures) == {"digits": ["ids", "offsets"]}
    assert {f.input for f in failures} == {"一英里大约是1600米。", "2010这个数字里有两个零。"}


def test_a_new_special_token_fails_only_the_control_tokens(bundled):
    vocab = COURSE.vocab | {COURSE.vocab_size: b"<|im_start|>"}
    changed = rebuilt(COURSE, vocab=vocab,
                      special_tokens=[*COURSE.special_tokens, "<|im_start|>"])
    assert manifest.digest(changed) != manifest.digest(COURSE)
    failures = golden.check(changed, bundled)
    assert golden.failing_categories(failures) == {
        "control_tokens": ["encode_error", "ids_allowed_special", "offsets_allowed_special"]}
    assert [f.input for f in failures] == ["<|im_start|>user\nhi<|im_end|>"]


def test_another_normalization_fails_the_categories_nfkc_changes(bundled):
    changed = rebuilt(COURSE, normalization="NFKC")
    assert manifest.digest(changed) != manifest.digest(COURSE)
    assert sorted(golden.failing_categories(golden.check(changed, bundled))) == [
        "combining_marks", "compatibility", "control_tokens", "digits"]
    nfc = golden.failing_categories(golden.check(rebuilt(COURSE, normalization="NFC"), bundled))
    assert sorted(nfc) == ["combining_marks", "compatibility"]  # U+F900 is NFC's too


# ---------------------------------------------------------------- the manifest and the command


def test_the_files_sha256_goes_into_the_manifest_without_changing_the_digest(tmp_path, bundled):
    tok = golden.with_golden_vectors(COURSE, bundled)
    assert tok.metadata[golden.MANIFEST_KEY] == data.COURSE_GOLDEN[1]
    assert manifest.digest(tok) == manifest.digest(COURSE)  # so the file, which records the digest, stays valid
    loaded = manifest.load(manifest.save(tok, tmp_path / "t.json"))
    assert manifest.manifest(loaded)[golden.MANIFEST_KEY] == hashlib.sha256(bundled.read_bytes()).hexdigest()


def test_golden_vectors_of_another_tokenizer_are_not_attached(bundled):
    with pytest.raises(ValueError, match="was written for tokenizer"):
        golden.with_golden_vectors(rebuilt(COURSE, pattern="gpt4"), bundled)


def test_read_refuses_what_write_did_not_make(tmp_path):
    path = tmp_path / "x.jsonl"
    for text, message in [("", "no golden vectors header"), ("not json\n", "JSON lines"),
                          ('{"golden_vectors": 2}\n', "schema 2"),
                          ('{"golden_vectors": 1}\n{"ids": []}\n', "line 2 is not a golden")]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            golden.read(path)
    with pytest.raises(TypeError, match="tokenizer"):
        golden.check("course", path)


def test_every_text_vector_keeps_the_invariant_decode_of_encode_is_n(bundled):
    text_vectors = [v for v in golden.read(bundled)[1] if "decoded" in v and "input" in v]
    assert len(text_vectors) == 43
    assert all(v["decoded"] == v["normalized"] for v in text_vectors)
    assert all(len(v["offsets"]) == len(v["ids"]) for v in text_vectors)


def test_vector_refuses_bad_arguments():
    with pytest.raises(TypeError, match="x must be a str .* or bytes"):
        golden.vector(COURSE, "digits", 12)
    with pytest.raises(TypeError, match="tokenizer"):
        golden.vector(None, "digits", "12")
    with pytest.raises(ValueError, match="category"):
        golden.vector(COURSE, "", "12")


def test_gpt2_writes_its_own_file_and_the_course_tokenizer_fails_it(gpt2, tmp_path):
    path = golden.write(gpt2, tmp_path / "gpt2.jsonl")
    assert golden.read(path)[0]["tokenizer_sha256"] == manifest.digest(gpt2)
    assert golden.check(gpt2, path) == []
    # another tokenizer altogether: every category that encodes text differs
    assert len(golden.failing_categories(golden.check(COURSE, path))) == len(CATEGORIES)


def test_a_tokenizer_with_nfkc_records_and_passes_its_own_form(tmp_path):
    nfkc = rebuilt(COURSE, normalization="NFKC")
    path = golden.write(nfkc, tmp_path / "nfkc.jsonl")
    header, vectors = golden.read(path)
    assert header["normalization"] == "NFKC" and golden.check(nfkc, path) == []
    look_alike = next(v for v in vectors if v.get("input") == "＜｜endoftext｜＞")
    # N(x) spells the control token, yet its ids stay ordinary even with every special allowed
    assert look_alike["normalized"] == data.ENDOFTEXT
    assert 256 not in look_alike["ids_allowed_special"]


def test_a_failed_write_leaves_the_old_file(tmp_path, monkeypatch, bundled):
    path = tmp_path / "g.jsonl"
    path.write_bytes(bundled.read_bytes())

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(golden, "vector", broken)
    with pytest.raises(RuntimeError):
        golden.write(COURSE, path)
    assert path.read_bytes() == bundled.read_bytes() and len(list(tmp_path.iterdir())) == 1


def test_ordinary_offsets_are_encode_ordinarys_ids_even_for_a_special_tokens_text():
    for x in CATEGORIES[9].inputs:
        result = golden._ordinary_offsets(COURSE, x)
        assert result.ids == COURSE.encode_ordinary(x)
        assert result.offsets[-1][1] == len(x) and result.offsets[0][0] == 0
