"""The shipped packing tokenizer is the one its recipe trains, and the file is the registered one."""

import hashlib

import pytest

from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.contract import golden, manifest


def test_retraining_gives_the_shipped_file_byte_for_byte(tmp_path):
    # as tools/train_course_tokenizer.py makes it: trained, then its golden vectors' sha256 recorded
    shipped = data.course_tokenizer_path().read_bytes()
    tokenizer = golden.with_golden_vectors(course_tokenizer.train(), data.course_golden_path())
    assert manifest.save(tokenizer, tmp_path / "t.json").read_bytes() == shipped
    assert manifest.manifest(tokenizer)[golden.MANIFEST_KEY] == data.COURSE_GOLDEN[1]


def test_the_file_is_registered_in_provenance_and_checked(tmp_path, monkeypatch):
    filename, digest = data.COURSE_TOKENIZER
    provenance = (data.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    assert digest in provenance and filename in provenance
    assert hashlib.sha256(data.course_tokenizer_path().read_bytes()).hexdigest() == digest
    altered = tmp_path / filename
    altered.parent.mkdir()
    altered.write_bytes(data.course_tokenizer_path().read_bytes().replace(b'"t"', b'"T"', 1))
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match="not the file this course was written against.*restore it from data/"):
        course_tokenizer.load()


def test_loaded_tokenizer_has_the_recipe_and_round_trips_the_documents():
    tok = course_tokenizer.load()
    assert tok.vocab_size == course_tokenizer.VOCAB_SIZE
    assert tuple(tok.special_tokens) == course_tokenizer.SPECIAL_TOKENS
    for docs in course_tokenizer.documents().values():
        assert all(tok.decode(tok.encode_ordinary(text)) == text for text in docs[:200])
