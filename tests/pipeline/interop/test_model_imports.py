"""model_imports: Qwen2.5 and DeepSeek-V4 in our Tokenizer give their own library's ids.

Each loads 130k to 150k tokens (1 to 2 s), once per session (`model_imports.tokenizer` caches);
the corpus checks use the first 300 lines of every bundled corpus.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from tutorial_lib import data
from tutorial_pipeline.interop import hf_json, model_imports
from tutorial_lib.text import model_tokenizers
from tutorial_lib.bpe.pretokenize import pretokenize
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest

CORPORA = [c.name for c in data.list_corpora()]


def head(name, lines=300):
    return "\n".join(data.load_text(name).splitlines()[:lines])


@pytest.fixture(scope="module")
def deepseek_splits():
    """DeepSeek-V4's three Split steps, as tokenizers runs them."""
    spec = json.loads(model_tokenizers.read_checked("DeepSeek-V4"))
    steps = spec["pre_tokenizer"]["pretokenizers"][:3]
    return pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(s["pattern"]["Regex"]),
                                                         behavior="isolated") for s in steps])


@pytest.mark.parametrize("model", ["DeepSeek-V4", "Qwen2.5"])
@pytest.mark.parametrize("name", CORPORA)
def test_an_imported_model_tokenizer_gives_its_own_librarys_ids(model, name):
    """DeepSeek-V4 against `tokenizers` reading its tokenizer.json, Qwen2.5 against tiktoken."""
    ours = model_imports.tokenizer(model)
    text = head(name)
    assert ours.encode_ordinary(text) == model_tokenizers.load(model).encode(text)


def test_deepseek_v4s_added_tokens_are_special_tokens():
    ours = model_imports.tokenizer("DeepSeek-V4")
    assert len(ours.special_tokens) == 1283 and ours.vocab_size == 129_280
    text = "<｜begin▁of▁sentence｜>你好<think>2024</think>"
    ids = ours.encode(text, allowed_special="all")
    hf = json.loads(model_tokenizers.read_checked("DeepSeek-V4"))
    assert ids == HFTokenizer.from_str(json.dumps(hf)).encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("name", CORPORA)
def test_deepseek_v4_pattern_cuts_like_its_three_splits(deepseek_splits, name):
    text = head(name, 2_000)
    ours = pretokenize(text, model_imports.DEEPSEEK_V4_PATTERN)
    assert ours == [piece for piece, _ in deepseek_splits.pre_tokenize_str(text)]


@settings(max_examples=100, deadline=None)
@given(st.text(st.one_of(st.characters(exclude_categories=("Cn", "Cs")),
                         st.sampled_from("0123456789 \n\r\t一丁ぁゝ゛・ーカ゠々!#A'")), max_size=40))
def test_deepseek_v4_pattern_on_random_text(deepseek_splits, text):
    assert pretokenize(text, model_imports.DEEPSEEK_V4_PATTERN) == \
           [piece for piece, _ in deepseek_splits.pre_tokenize_str(text)]


def test_deepseek_v4_exported_again_is_one_split_that_gives_its_ids(tmp_path):
    """DeepSeek's file -> our Tokenizer -> a tokenizer.json with DEEPSEEK_V4_PATTERN as its one
    Split: Hugging Face gives the original file's ids, and it reads back to the same digest."""
    ours = model_imports.tokenizer("DeepSeek-V4")
    path = hf_json.to_huggingface(ours, tmp_path / "deepseek.json")
    exported = HFTokenizer.from_file(str(path))
    original = HFTokenizer.from_file(str(model_tokenizers.file_path("DeepSeek-V4")))
    for name in CORPORA:
        text = head(name)
        assert exported.encode(text).ids == original.encode(text).ids, name
    assert manifest.digest(hf_json.from_huggingface(path)) == manifest.digest(ours)


def test_qwen25_normalizes_to_nfc():
    ours = model_imports.tokenizer("Qwen2.5")
    assert ours.normalization == "NFC" and ours.decode(ours.encode("Cafe\u0301")) == "Café"


def test_qwen36_is_refused_naming_the_token_its_merges_cannot_make():
    with pytest.raises(ValueError, match="rank 99655.*3 parts"):
        model_imports.tokenizer("Qwen3.6")
    assert "人力资源".encode() == b"\xe4\xba\xba\xe5\x8a\x9b\xe8\xb5\x84\xe6\xba\x90"
    # tiktoken's whole-piece look-up: a pre-token that is a vocabulary entry is one token, even one
    # that no merges make
    assert model_tokenizers.load("Qwen3.6").encode(" möglicherweise") == [206765]
