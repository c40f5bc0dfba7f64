"""SentencePiece settings on Chinese: no files left, determinism, the shipped models, bad options,
and the direction of each effect measured in sp_settings' report (small Tatoeba trainings, a few
seconds in all)."""

import hashlib
import json
import os
import re
import tempfile

import pytest

from tutorial_lib import data
from tutorial_lib.unigram import sp_settings as sps

BASE = {"vocab_size": 3000}
VARIANTS = {
    "base": {},
    "bpe": {"model_type": "bpe"},
    "cov1": {"character_coverage": 1.0},
    "bytes": {"byte_fallback": True},
    "digits": {"split_digits": True},
    "identity": {"normalization_rule_name": "identity"},
    "no_prefix": {"add_dummy_prefix": False},
    "no_script": {"split_by_unicode_script": False},
}
HAN = re.compile(r"[\u4e00-\u9fff]")
ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


@pytest.fixture(scope="module")
def corpus():
    """6,000 Tatoeba sentences to train on, the last 2,000 held out."""
    lines = [s for s in data.load_text("tatoeba_cmn").splitlines() if s.strip()]
    return lines[:6000], lines[-2000:]


@pytest.fixture(scope="module")
def results(corpus):
    train, test = corpus
    return {r.name: r for r in sps.compare_settings(train, {"tatoeba": test}, BASE, VARIANTS)}


def one(results, name):
    (m,) = results[name].measurements
    return m


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """Point tempfile at an empty directory of the test's own, to see what training leaves."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def test_training_leaves_no_file(corpus, own_tmp):
    model = sps.train(corpus[0][:500], {"vocab_size": 600})
    assert os.listdir(own_tmp) == []
    assert model.processor.get_piece_size() == 600


def test_a_refused_training_leaves_no_file(corpus, own_tmp):
    with pytest.raises(ValueError, match="SentencePiece refused"):
        sps.train(corpus[0][:50], {"vocab_size": 50_000})  # more pieces than the text can fill
    assert os.listdir(own_tmp) == []


def test_the_base_settings_name_where_they_are_not_sentencepiece_s_defaults():
    assert set(sps.NOT_DEFAULTS) <= set(sps.BASE_OPTIONS)
    assert all(sps.BASE_OPTIONS[k] != v for k, v in sps.NOT_DEFAULTS.items())
    assert sps.NOT_DEFAULTS["seed"] is None  # not a trainer option: a trainer would refuse it


def test_training_twice_gives_the_same_model(corpus):
    a = sps.train(corpus[0][:2000], {"vocab_size": 1500})
    b = sps.train(corpus[0][:2000], {"vocab_size": 1500})
    assert a.processor.serialized_model_proto() == b.processor.serialized_model_proto()
    assert [(a.processor.id_to_piece(i), a.processor.get_score(i)) for i in range(1500)] == [
        (b.processor.id_to_piece(i), b.processor.get_score(i)) for i in range(1500)]
    assert sps.measure(a, corpus[1]) == sps.measure(b, corpus[1])


def test_compare_settings_is_deterministic(corpus, results):
    again = sps.compare_settings(corpus[0], {"tatoeba": corpus[1]}, BASE,
                                 {"base": {}, "bpe": {"model_type": "bpe"}})
    assert again == [results["base"], results["bpe"]]


def shipped_manifest():
    return json.loads((data.DATA_DIR / sps.SHIPPED_DIR / "MANIFEST.json").read_text("utf-8"))


def test_every_shipped_model_is_in_the_manifest_with_its_sha256():
    manifest = shipped_manifest()
    files = {p.stem for p in (data.DATA_DIR / sps.SHIPPED_DIR).glob("*.model")}
    assert files == set(manifest) and len(files) == 15  # chapter 11, section 7
    for key, entry in manifest.items():
        assert hashlib.sha256(sps.shipped_proto(key)).hexdigest() == entry["sha256"]


def test_the_chapter_s_trainings_are_the_shipped_ones():
    """Section 7's recipe gives keys the manifest holds: its Run All loads, not trains."""
    train_lines, _ = sps.chinese_corpora()
    manifest = shipped_manifest()
    for options in ({"split_digits": True}, {"model_type": "bpe", "vocab_size": 12000},
                    {"character_coverage": 1.0, "byte_fallback": True}):
        key = sps.training_key(train_lines, {**sps.BASE_OPTIONS, **options})
        assert {k: manifest[key]["options"][k] for k in options} == options


@pytest.mark.parametrize("options", [{"model_type": "bpe", "vocab_size": 6000},
                                     {"model_type": "unigram", "vocab_size": 6000}])
def test_a_shipped_model_is_what_training_gives(options):
    """Trained again (shipped=False), a shipped model comes out byte for byte the same."""
    train_lines, _ = sps.chinese_corpora()
    shipped = sps.train(train_lines, options)
    trained = sps.train(train_lines, options, shipped=False)
    proto = trained.processor.serialized_model_proto()
    assert proto == shipped.processor.serialized_model_proto()
    assert proto == sps.shipped_proto(sps.training_key(train_lines, trained.options))


def test_the_training_key_names_lines_options_and_seed(corpus):
    lines, options = corpus[0][:100], dict(sps.BASE_OPTIONS)
    keys = {sps.training_key(lines, options), sps.training_key(lines[:-1], options),
            sps.training_key([lines[0] + "x"] + lines[1:], options),
            sps.training_key(lines, {**options, "seed": 1}),
            sps.training_key(lines, {**options, "split_digits": True})}
    assert len(keys) == 5
    assert sps.shipped_proto(sps.training_key(lines, options)) is None  # not shipped: trained


def test_a_damaged_shipped_model_is_refused(corpus, tmp_path, monkeypatch):
    lines = corpus[0][:500]
    key = sps.training_key(lines, {**sps.BASE_OPTIONS, "vocab_size": 600})
    (tmp_path / sps.SHIPPED_DIR).mkdir()
    (tmp_path / sps.SHIPPED_DIR / f"{key}.model").write_bytes(b"not the model")
    (tmp_path / sps.SHIPPED_DIR / "MANIFEST.json").write_text(json.dumps(
        {key: {"name": "m", "sha256": "0" * 64}}), "utf-8")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match="ship_sentencepiece_models"):
        sps.train(lines, {"vocab_size": 600})
    assert sps.train(lines, {"vocab_size": 600}, shipped=False).processor.get_piece_size() == 600


@pytest.mark.parametrize("options, error, match", [
    ({"input": "x.txt"}, ValueError, "set by sp_settings"),
    ({"model_prefix": "m"}, ValueError, "set by sp_settings"),
    ({"vocab_sise": 1000}, ValueError, "unknown field name"),
    ({"model_type": "wordpiece"}, ValueError, "model_type|kModelType"),
    ({"character_coverage": 0.5}, ValueError, "character_coverage"),
    ({"split_digits": [True]}, TypeError, "split_digits"),
    ({"seed": -1}, ValueError, "seed"),
    ({1: 2}, TypeError, "options"),
])
def test_bad_options_get_a_clear_error(corpus, options, error, match):
    with pytest.raises(error, match=match):
        sps.train(corpus[0][:200], options)


def test_bad_texts_and_variants(corpus):
    with pytest.raises(ValueError, match="texts"):
        sps.train(["", "  "])
    with pytest.raises(TypeError, match="texts"):
        sps.train("一句话")
    with pytest.raises(ValueError, match="newline"):
        sps.train(["一句\n两句"])
    with pytest.raises(ValueError, match="variants"):
        sps.compare_settings(corpus[0][:100], corpus[1][:10], BASE, {})
    with pytest.raises(TypeError, match="model"):
        sps.measure("model", corpus[1])


def test_full_coverage_leaves_fewer_unknown_characters(results):
    base, full = one(results, "base"), one(results, "cov1")
    assert results["cov1"].alphabet > results["base"].alphabet
    assert full.unknown_chars < base.unknown_chars
    assert full.distinct_unknown < base.distinct_unknown


def test_byte_fallback_turns_unk_into_bytes(results, corpus):
    plain, fallback = one(results, "base"), one(results, "bytes")
    assert plain.unk_tokens > 0 and plain.byte_tokens == 0
    assert fallback.unk_tokens == 0 and fallback.byte_tokens >= fallback.unknown_chars
    assert fallback.unknown_chars == plain.unknown_chars  # the same characters, written otherwise
    assert fallback.tokens > plain.tokens  # a lost Han character costs 3 byte pieces, not 1 <unk>
    rare = "龘"
    (seg,) = sps.apply(results["bytes"].model, [rare])
    assert [p for p in seg.pieces if p.startswith("<0x")] == ["<0xE9>", "<0xBE>", "<0x98>"]
    assert seg.round_trip


def test_unigram_and_bpe_differ_little(results):
    uni, bpe = one(results, "base"), one(results, "bpe")
    gap = abs(uni.tokens_per_1000_chars - bpe.tokens_per_1000_chars)
    assert gap < 0.05 * uni.tokens_per_1000_chars
    a, b = (sps.learned_pieces(results[name].model) for name in ("base", "bpe"))
    assert 0.5 < len(a & b) / len(a | b) < 1.0


def test_split_digits_keeps_digits_apart(results):
    def multi_digit(name):
        return {p for p in sps.learned_pieces(results[name].model) if re.search(r"\d\d", p)}

    assert multi_digit("base") and not multi_digit("digits")
    (seg,) = sps.apply(results["digits"].model, ["2024年3月14日"])
    assert [p for p in seg.pieces if p.isdigit()] == list("2024314")


def test_nmt_nfkc_folds_full_width_forms(results):
    nfkc, identity = results["base"].model, results["identity"].model
    changed = {c: n for c, n, _ in sps.nfkc_changes(nfkc, "，。！？（）ＡＢ１２你")}
    assert changed == {"，": ",", "！": "!", "？": "?", "（": "(", "）": ")", "Ａ": "A", "Ｂ": "B",
                       "１": "1", "２": "2"}
    assert sps.nfkc_changes(identity, "，。！？（）ＡＢ１２") == []
    text = "你好，我们！"
    (a,), (b,) = sps.apply(nfkc, [text]), sps.apply(identity, [text])
    assert a.decoded == "你好,我们!" and not a.round_trip
    assert b.round_trip


def test_add_dummy_prefix_costs_tokens_on_chinese(results):
    on, off = one(results, "base"), one(results, "no_prefix")
    assert on.lone_prefix_tokens > 5 * off.lone_prefix_tokens
    assert off.tokens < on.tokens
    (seg,) = sps.apply(results["no_prefix"].model, ["你好"])
    assert not seg.pieces[0].startswith("▁")


def test_split_by_unicode_script_keeps_han_and_latin_apart(results):
    def mixed(name):
        return [p for p in sps.learned_pieces(results[name].model)
                if HAN.search(p) and ASCII_ALNUM.search(p)]

    assert mixed("base") == []
    assert mixed("no_script")
    for seg in sps.apply(results["base"].model, ["GPT-4模型在2024年"]):
        assert not any(HAN.search(p) and ASCII_ALNUM.search(p) for p in seg.pieces)
