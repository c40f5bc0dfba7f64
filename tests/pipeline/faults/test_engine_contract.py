"""The engines' contract on every document, not only on the sampled ones: a document of each class of
input where an engine's library gives other ids than ours (`engine_routes`) is put where the sample
check does not look, built through the real pipeline with the engine, and must come out byte for
byte as our encoder's build; random text must get our ids from every engine."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer
from tutorial_lib.contract.normalize import normalize
from tutorial_lib.packing.megatron import bin_path, idx_path
from tutorial_pipeline import local
from tutorial_pipeline.engines import SAMPLE_EVERY, SAMPLE_FIRST, make_engine
from tutorial_pipeline.local import build

LIBRARIES = ["tiktoken", "huggingface"]
# Class 5: a pattern class the engine reads otherwise, and a word whose ids differ there (a small
# tokenizer trained on it has a merge across the place where the engine cuts).
PATTERN_CASES = {"tiktoken": (r" ?[[:alpha:]]+| ?[^\s[:alpha:]]+|\s+(?!\S)|\s+", " café"),
                 "huggingface": (r" ?\w+| ?[^\w\s]+|\s+(?!\S)|\s+", " a\u200db")}


@pytest.fixture(scope="module")
def made():
    """The course tokenizer (GPT-2's pattern) as it is, under NFKC and under NFKC_casefold, and one
    small tokenizer per class-5 case, each with both library engines, made once."""
    course = course_tokenizer.load()
    tokenizers = {"course": course, "nfkc": course.replace(normalization="NFKC"),
                  "casefold": course.replace(normalization="NFKC_casefold")}
    for library, (pattern, word) in PATTERN_CASES.items():
        tokenizers[library] = train_tokenizer([f"the cat{word} sat. " * 40], 300, ["<|endoftext|>"],
                                              pattern)
    return {name: (tok, {library: make_engine(library, tok) for library in LIBRARIES})
            for name, tok in tokenizers.items()}


def library_ids(engine, tok, text, pickled=False):
    """What the engine's library alone makes of `text` (normalized by ours, as the engine gives
    it); `pickled`: the library's tokenizer as a worker receives it."""
    text = normalize(text, tok.normalization)
    if engine.library == "tiktoken":
        return engine._encoding.encode_ordinary(text)
    hf = pickle.loads(pickle.dumps(engine._hf)) if pickled else engine._hf
    return hf.encode(text, add_special_tokens=False).ids


def built_alike(tmp_path, tok, engine, document, index, **options):
    """Whether a corpus of lines with `document` at `index` (not a sampled one) builds to the same
    .bin and .idx with `engine` as with our encoder."""
    assert index >= SAMPLE_FIRST and index % SAMPLE_EVERY, "a sampled document"
    lines = [f"line {k} says hello" for k in range(index + 30)]
    lines[index] = document
    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build(tmp_path / "corpus.txt", tok, tmp_path / "ours", progress=False)
    build(tmp_path / "corpus.txt", tok, tmp_path / "theirs", engine=engine, progress=False, **options)
    return [(bin_path(p).read_bytes(), idx_path(p).read_bytes())
            for p in (tmp_path / "ours", tmp_path / "theirs")]


def assert_built_alike(*args, **options):
    ours, theirs = built_alike(*args, **options)
    assert ours == theirs


# ------------------------------------------------------------------------------------ each class


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_character_newer_than_the_engines_tables_gets_our_ids(made, tmp_path, library):
    """Class 1: U+0C5C is a letter for `regex` and unassigned for both engines."""
    tok, engines = made["course"]
    document = "Once \u0c5c's tale"
    assert library_ids(engines[library], tok, document) != tok.encode_ordinary(document)
    assert_built_alike(tmp_path, tok, engines[library], document, 1500)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("name, document", [("nfkc", "a \uff1c|endoftext|\uff1e b"),
                                            ("casefold", "a <|ENDOFTEXT|> b")])
def test_special_token_text_made_by_normalization_stays_text_in_the_workers(
        made, tmp_path, monkeypatch, library, name, document):
    """Class 2: normalization makes "<|endoftext|>"; a pickled tokenizers.Tokenizer (a worker's)
    would make it the control token."""
    monkeypatch.setattr(local, "WORKERS_FROM_BYTES", dict.fromkeys(local.WORKERS_FROM_BYTES, 0))
    monkeypatch.setattr(local, "BATCH_CHARS", 10_000)  # the document is in a worker's batch
    tok, engines = made[name]
    if library == "huggingface":
        assert tok.special_tokens["<|endoftext|>"] in library_ids(engines[library], tok, document,
                                                                  pickled=True)
    assert_built_alike(tmp_path, tok, engines[library], document, 1500, workers=2)


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_long_run_of_spaces_gets_our_ids(made, tmp_path, library):
    """Class 3: tiktoken's regex engine overflows its stack on 999,999 spaces and panics."""
    tok, engines = made["course"]
    document = " " * 1_000_000 + "x"
    if library == "tiktoken":
        with pytest.raises(BaseException, match="StackOverflow"):  # pyo3's PanicException
            library_ids(engines[library], tok, document)
    assert_built_alike(tmp_path, tok, engines[library], document, 150)


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_lone_surrogate_is_refused_by_our_encoder(made, library):
    """Class 4: tiktoken would put U+FFFD there; a corpus file cannot hold one, a caller's str can."""
    tok, engines = made["course"]
    with pytest.raises(ValueError, match="lone surrogate"):
        list(engines[library].encode_batch(["fine", "a\ud800b"]))


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_class_the_engine_reads_otherwise_gets_our_ids(made, tmp_path, library):
    """Class 5: [[:alpha:]] is ASCII in tiktoken; Oniguruma's \\w leaves out U+200D."""
    tok, engines = made[library]
    document = f"the cat{PATTERN_CASES[library][1]} sat"
    assert library_ids(engines[library], tok, document) != tok.encode_ordinary(document)
    assert_built_alike(tmp_path, tok, engines[library], document, 1500)


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_escape_that_cannot_be_probed_is_refused(made, library):
    tok, _ = made["course"]
    with pytest.raises(ValueError, match=r"uses '\\\\X', which is not a class of characters"):
        make_engine(library, tok.replace(pattern=r"\X|\s+"))


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_special_token_outside_the_sample_is_refused_by_every_engine(made, tmp_path, library):
    """Rule 1, wherever the document is: refused before any engine sees it."""
    tok, engines = made["course"]
    with pytest.raises(ValueError, match="the document at index 1500: it contains the special token "
                                         "'<|pad|>' at index 5"):
        built_alike(tmp_path, tok, engines[library], "also <|pad|> here", 1500)


# ------------------------------------------------------------------- the classes are the only ones


@pytest.mark.parametrize("library", ["tiktoken", "tokenizers"])
def test_outside_the_routed_characters_the_engines_read_every_verified_class_like_regex(library):
    """Class 1 is complete for the course's patterns: on every character that a Unicode table
    assigns and that is not routed, each VERIFIED class holds the same characters in the engine's
    regex engine as in `regex`."""
    from tutorial_pipeline.engine_routes import VERIFIED, differing

    differences = {char_class: differing(char_class, library) for char_class in VERIFIED}
    assert differences == dict.fromkeys(VERIFIED, ())


SNIPPETS = ["\u0c5c's", "\u0558", "\u0295x", "\U0001171e", "\uff1c|endoftext|\uff1e", "<|ENDOFTEXT|>",
            "<|endoftext|>", "\ufb01", "\u2460", "\u200d", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "'S", "'\u017f", " " * 40, "1" * 30, "\n\n", "\r\n", "\ufdd0", "\U0010ffff", "\ue000",
            "e\u0301", "\u0130", "\u00b2"]
TEXTS = st.lists(st.one_of(st.text(st.characters(codec="utf-8"), max_size=12),
                           st.sampled_from(SNIPPETS)), max_size=8).map("".join)


@pytest.fixture(scope="module")
def in_workers(made):
    """Each engine of `made` and its copy as a worker receives it (pickled)."""
    return {name: (tok, [copy for engine in engines.values()
                         for copy in (engine, pickle.loads(pickle.dumps(engine)))])
            for name, (tok, engines) in made.items() if name in ("course", "casefold")}


@settings(max_examples=60, deadline=None)
@given(batch=st.lists(TEXTS, min_size=1, max_size=4))
def test_random_text_gets_our_ids_from_every_engine_here_and_in_a_worker(in_workers, batch):
    for tok, engines in in_workers.values():
        ours = [tok.encode_ordinary(text) for text in batch]
        for engine in engines:
            assert [list(ids) for ids in engine.encode_batch(batch)] == ours, engine.name
