"""The trainer stages of chapter 06: every stage learns exactly what train_bpe learns, the incremental update
keeps the pair counts equal to a full recount, and merge_work counts what a recount would scan."""

from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.data import load_text, tinystories_documents
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, GPT4_PATTERN
from tutorial_lib.bpe.corpus import count_pretokens
from tutorial_lib.bpe.merge import merge
from tutorial_lib.bpe.trainer import train_bpe
from tutorial_lib.bpe.trainer_stages import (merge_work, train_bpe_incremental, train_bpe_recount, update_pair_counts)

STAGES = {
    "recount": train_bpe_recount,
    "incremental": train_bpe_incremental,
    "incremental+heap": lambda *args: train_bpe_incremental(*args, heap=True),
}
EACH_STAGE = pytest.mark.parametrize("stage", list(STAGES))

CORPORA = {
    "time machine": (lambda: [load_text("timemachine")[:30_000]], 400, []),
    "lu xun": (lambda: [load_text("luxun")[:8_000]], 400, []),
    "tinystories with a special token": (lambda: ["<|endoftext|>".join(tinystories_documents()[:40])], 350,
                                         ["<|endoftext|>"]),
}


# train_bpe_recount counts every pair of every occurrence again for each merge (no size-dependent path): it
# learns the same number of merges from a smaller slice of the same corpus (8,000 characters, as Lu Xun's;
# 25 stories, the fewest that still catch a recount merging only a word's first occurrence of the pair).
RECOUNT_TEXTS = {
    "time machine": lambda: [load_text("timemachine")[:8_000]],
    "tinystories with a special token": lambda: ["<|endoftext|>".join(tinystories_documents()[:25])],
}


@EACH_STAGE
@pytest.mark.parametrize("corpus", list(CORPORA))
def test_every_stage_learns_what_train_bpe_learns(stage, corpus):
    texts, vocab_size, specials = CORPORA[corpus]
    texts = (RECOUNT_TEXTS.get(corpus, texts) if stage == "recount" else texts)()
    expected = train_bpe(texts, vocab_size, specials)
    assert len(expected[1]) == vocab_size - 256 - len(specials)  # no early stop on any slice
    assert STAGES[stage](texts, vocab_size, specials) == expected


TEXT = st.lists(st.sampled_from(["a", "b", "aa", "aaaa", "ab", " ", "\n", "人", "工", "智能", "😀", "<s>"]),
                max_size=30).map("".join)


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=5), merges=st.integers(0, 30),
       pattern=st.sampled_from([GPT2_PATTERN, GPT4_PATTERN, r"\S+|\s+"]))
def test_every_stage_agrees_with_train_bpe_on_random_corpora(texts, merges, pattern):
    args = (texts, 257 + merges, ["<s>"], pattern)
    try:
        expected = train_bpe(*args)
    except ValueError:  # nothing but special tokens
        return
    for stage in STAGES.values():
        assert stage(*args) == expected  # early stops included: the vocabularies have the same size


def recount(words, freqs):
    counts = Counter()
    for ids, freq in zip(words, freqs):
        for pair in zip(ids, ids[1:]):
            counts[pair] += freq
    return counts


WORDS = st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=8), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(words=WORDS, data=st.data())
def test_update_keeps_counts_and_index_equal_to_a_recount(words, data):
    freqs = data.draw(st.lists(st.integers(1, 5), min_size=len(words), max_size=len(words)))
    pair_counts = recount(words, freqs)
    where = defaultdict(set)
    for i, ids in enumerate(words):
        for p in zip(ids, ids[1:]):
            where[p].add(i)
    pair = data.draw(st.sampled_from(sorted(pair_counts))) if pair_counts else (0, 1)
    expected_words = [merge(ids, pair, 9) for ids in words]
    update_pair_counts(words, freqs, pair_counts, where, pair, 9)
    assert words == expected_words
    assert pair_counts == recount(words, freqs) and 0 not in pair_counts.values()
    assert {p: s for p, s in where.items() if s} == {p: {i for i, ids in enumerate(words) if p in zip(ids, ids[1:])}
                                                      for p in recount(words, freqs)}


def test_merge_work_counts_what_a_recount_scans():
    texts = [load_text("luxun")[:3_000]]
    works = merge_work(texts, 300)
    vocab, merges = train_bpe(texts, 300)
    assert [w.pair for w in works] == merges
    counts = count_pretokens(texts)
    words, freqs = [list(w) for w in counts], list(counts.values())
    ids = {token: i for i, token in vocab.items()}
    for work in works:
        pair = ids[work.pair[0]], ids[work.pair[1]]
        holding = [i for i, w in enumerate(words) if pair in zip(w, w[1:])]
        assert work.corpus_pairs == sum(f * (len(w) - 1) for w, f in zip(words, freqs))
        assert work.distinct_pairs == sum(len(w) - 1 for w in words)
        assert work.count == recount(words, freqs)[pair]
        assert work.words == len(holding)
        assert work.words_share(len(words)) == len(holding) / len(words)
        new_words = [merge(w, pair, ids[b"".join(work.pair)]) for w in words]
        assert work.updates == sum(len(words[i]) + len(new_words[i]) - 2 for i in holding)
        assert 1 <= len(work.examples) <= 3
        for before, after in work.examples:
            assert b"".join(before) == b"".join(after) and b"".join(work.pair) in after
        words = new_words


def test_words_share_refuses_a_corpus_smaller_than_the_words_it_holds():
    work = merge_work([load_text("luxun")[:3_000]], 257)[0]
    with pytest.raises(ValueError, match="distinct_words"):
        work.words_share(work.words - 1)


def test_merge_work_shows_the_most_frequent_words_first():
    works = merge_work(["ab ab ab xab xab cab"], 257)
    assert works[0].pair == (b"a", b"b")
    assert [b"".join(before) for before, _ in works[0].examples] == [b" ab", b" xab", b"ab"]


def test_heap_must_be_a_bool():
    with pytest.raises(TypeError, match="heap"):
        train_bpe_incremental(["ab"], 257, heap="yes")
