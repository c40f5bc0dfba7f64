"""SuperBPE: the fast trainer equals the naive one, reduces to train_bpe with the transition at the end,
follows SuperBPE's rules (word cap, ": "), and its Tokenizer encodes as training merged and round-trips."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.data import ENDOFTEXT, list_corpora, load_text, tinystories_documents
from tutorial_lib.evaluation import superbpe as sb
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, pretokenize
from tutorial_lib.bpe.corpus import CHUNK_SIZE, count_pretokens, iter_texts
from tutorial_lib.bpe.merge import merge_unchecked
from tutorial_lib.bpe.trainer import best_pair, count_pairs, train_bpe, train_bpe_naive, train_tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.stream_encode import encode_iterable

STORIES = tinystories_documents()[:40]
LUXUN = [line for line in load_text("luxun").splitlines() if line.strip()][:60]
LUXUN_TAIL = [line for line in load_text("luxun").splitlines() if line.strip()][-30:]
SLICES = {"tinystories": STORIES, "luxun": LUXUN}


def train_superbpe_naive(texts, vocab_size, transition, special_tokens=(), pattern=GPT2_PATTERN, *,
                         max_words=sb.MAX_WORDS):
    """`train_superbpe` the obvious way, the reference the fast one is held to: (vocab, merges, stage-1
    merges). Stage 1 is `train_bpe_naive`. Stage 2 cuts the text with SUPERWORD_PATTERN, replays the stage-1
    merges one by one on every piece (as the fork does), then after every merge counts every pair again and
    merges the most frequent allowed one (ties as in `trainer.best_pair`)."""
    vocab, merges = train_bpe_naive(texts, transition, special_tokens, pattern)
    stage_one = len(merges)
    if transition < vocab_size:
        specials, cut = list(special_tokens), sb.SUPERWORD_PATTERN
        counts = count_pretokens(iter_texts(texts, specials, CHUNK_SIZE, cut), specials, cut)
        words, freqs = [list(piece) for piece in counts], list(counts.values())
        id_of = {token: i for i, token in vocab.items()}
        for left, right in merges:  # stage 1's merges, in the order they were learned
            words = [merge_unchecked(ids, (id_of[left], id_of[right]), id_of[left + right]) for ids in words]
        verdicts = {}  # superword_allowed of each pair's token, asked once (it checks its arguments)
        while len(vocab) < vocab_size:
            allowed = {}
            for p, n in count_pairs(words, freqs).items():
                if p not in verdicts:
                    verdicts[p] = sb.superword_allowed(vocab[p[0]] + vocab[p[1]], max_words)
                if verdicts[p]:
                    allowed[p] = n
            best = best_pair(allowed, vocab)
            if best is None:
                break
            new_id = len(vocab)
            vocab[new_id] = vocab[best[0]] + vocab[best[1]]
            merges.append((vocab[best[0]], vocab[best[1]]))
            words = [merge_unchecked(ids, best, new_id) for ids in words]
    return vocab, merges, stage_one


@pytest.fixture(scope="module")
def mixed():
    """SuperBPE trained on both slices, switching half way, with <|endoftext|> special."""
    texts = [ENDOFTEXT.join(STORIES), *LUXUN]
    return sb.train_superbpe(texts, 900, 580, [ENDOFTEXT])


# --- by hand ------------------------------------------------------------------------------------------------


def test_a_toy_worked_by_hand():
    # Stage 1 (GPT-2 pieces "ab", " ab", " ab"): (a, b) x3, then (" ", ab) x2. Stage 2 sees one piece, stage-1
    # ids ab | " ab" | " ab": (ab, " ab") and (" ab", " ab") tie at 1, and b"ab" > b" ab", so "ab ab" first;
    # then ("ab ab", " ab") makes the three-word "ab ab ab".
    tok = sb.train_superbpe(["ab ab ab"], 260, 258)
    assert tok.merges == [(b"a", b"b"), (b" ", b"ab"), (b"ab", b" ab"), (b"ab ab", b" ab")]
    assert sb.stage_one_merges(tok) == 2
    assert sb.superword_merges(tok) == [(b"ab", b" ab"), (b"ab ab", b" ab")]
    assert [tok.token_bytes(i) for i in tok.encode("ab ab ab ab")] == [b"ab ab ab", b" ab"]
    # A cap of two words refuses the last merge, and nothing else is left to merge.
    capped = sb.train_superbpe(["ab ab ab"], 260, 258, max_words=2)
    assert capped.merges == tok.merges[:3]


def test_superword_pattern_cuts_lines_and_digit_runs_only():
    assert pretokenize("It was 5 pm. Then, 2024!\n\nThe end.\n", sb.SUPERWORD_PATTERN) == [
        "It was", " 5", " pm. Then,", " 2024", "!\n\n", "The end.\n"]
    assert pretokenize("我们，他们。\n“好！”\n", sb.SUPERWORD_PATTERN) == ["我们，他们。\n", "“好！”\n"]
    assert pretokenize("x1  2\n", sb.SUPERWORD_PATTERN) == ["x", "1", " ", " 2", "\n"]


@pytest.mark.parametrize("token, allowed", [
    (b" a b c d", True), (b" a b c d e", False), (b"a  b\nc", True), (b", I am", True), (b"Answer: B", False),
    (b"a:b", True), (b"\xe4\xba\x86\xef\xbc\x8c", True)])
def test_superword_allowed_follows_the_fork(token, allowed):
    assert sb.superword_allowed(token) is allowed


def test_superword_allowed_rules_can_change():
    assert sb.superword_allowed(b" a b c d e f", max_words=None)
    assert sb.superword_allowed(b"Answer: B", forbidden=())
    assert not sb.superword_allowed(b"x, y", forbidden=[", "])


@pytest.mark.parametrize("token, bridges", [
    (b", I am", True), (b" the", False), (b"the", False), (b"\xe7\x9a\x84", False),  # 的
    (b"\xe7\x9a\x84\xe4\xba", False),  # 的 and the first two bytes of 了: one Han run
    (b"\xe4\xba\x86\xef\xbc\x8c", True),  # 了，
    (b"\x80", False), (b".\n", True)])
def test_bridges_pretokens(token, bridges):
    assert sb.bridges_pretokens(token) is bridges


# --- fast = naive; the ends of the range -----------------------------------------------------------------------


@pytest.mark.parametrize("name", SLICES)
@pytest.mark.parametrize("vocab_size, transition", [(560, 256), (560, 420), (560, 559), (500, 500)])
def test_fast_equals_naive_on_real_text(name, vocab_size, transition):
    fast = sb.train_superbpe(SLICES[name], vocab_size, transition)
    vocab, merges, stage_one = train_superbpe_naive(SLICES[name], vocab_size, transition)
    assert fast.merges == merges
    assert fast.vocab == vocab
    assert sb.stage_one_merges(fast) == stage_one == transition - 256
    assert len(fast.vocab) == vocab_size


@pytest.mark.parametrize("name", SLICES)
def test_stage_one_is_train_bpe_up_to_the_transition(name):
    tok = sb.train_superbpe(SLICES[name], 800, 600)
    assert tok.merges[:344] == train_bpe(SLICES[name], 600)[1]
    assert tok.merges[344:] == sb.superword_merges(tok)
    assert tok.merges != train_bpe(SLICES[name], 800)[1]


def test_transition_at_the_end_is_train_bpe_even_when_stage_one_runs_out():
    expected = train_bpe(STORIES, 3000)  # 40 stories run out of pairs long before 3000 entries
    assert len(expected[0]) < 2500
    tok = sb.train_superbpe(STORIES, 3000, 3000)
    assert (tok.vocab, tok.merges) == expected
    assert sb.superword_merges(tok) == []
    # One entry before the end, stage 2 takes over where stage 1 ran out and fills the vocabulary.
    more = sb.train_superbpe(STORIES, 3000, 2999)
    assert more.merges[:len(expected[1])] == expected[1] and len(more.vocab) == 3000


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(st.text(alphabet="aab  c.,:\n1", max_size=40), min_size=1, max_size=5),
       extra=st.integers(0, 12), stage_one=st.integers(0, 12), max_words=st.sampled_from([None, 1, 2, 4]),
       pattern=st.sampled_from(["gpt2", "gpt4"]))
def test_fast_equals_naive_on_random_texts(texts, extra, stage_one, max_words, pattern):
    if not "".join(texts):
        return
    vocab_size = 256 + stage_one + extra
    args = (texts, vocab_size, 256 + stage_one)
    fast = sb.train_superbpe(*args, pattern=pattern, max_words=max_words)
    assert fast.merges == train_superbpe_naive(*args, pattern=pattern, max_words=max_words)[1]
    assert all(sb.superword_allowed(a + b, max_words) for a, b in sb.superword_merges(fast))


def test_fast_equals_naive_with_special_tokens():
    texts = [ENDOFTEXT.join(STORIES[:15]) + "<|pad|>", *LUXUN[:15]]
    args = (texts, 500, 380, [ENDOFTEXT, "<|pad|>"])
    fast, (vocab, merges, _) = sb.train_superbpe(*args), train_superbpe_naive(*args)
    assert fast.merges == merges and fast.vocab == vocab
    assert [fast.vocab[256], fast.vocab[257]] == [ENDOFTEXT.encode(), b"<|pad|>"]


# --- SuperBPE's rules on real text -------------------------------------------------------------------------------


def test_stage_two_keeps_to_the_word_cap_and_the_colon_rule():
    texts = [*STORIES, "Q: who? A: the cat. " * 30]
    tok = sb.train_superbpe(texts, 1200, 600)
    new = [a + b for a, b in sb.superword_merges(tok)]
    assert len(new) == 1200 - 600
    assert all(b": " not in t and sum(1 for w in t.split(b" ") if w) <= sb.MAX_WORDS for t in new)
    assert any(b" " in t.strip() for t in new)  # superwords bridge spaces
    free = sb.train_superbpe(texts, 1200, 600, max_words=None, forbidden=())
    assert any(b": " in a + b for a, b in sb.superword_merges(free))


def test_special_tokens_stay_whole(mixed):
    assert all(ENDOFTEXT.encode() not in a + b for a, b in mixed.merges)
    text = STORIES[0] + ENDOFTEXT + LUXUN[0]
    ids = mixed.encode(text, allowed_special="all")
    assert mixed.special_tokens[ENDOFTEXT] in ids and mixed.decode(ids) == text


# --- the Tokenizer: encodes as training merged, round trips, saves --------------------------------------------


@pytest.mark.parametrize("name", SLICES)
def test_encoding_a_training_piece_gives_what_training_left(name):
    tok = sb.train_superbpe(SLICES[name], 600, 450)
    id_of = {token: i for i, token in tok.vocab.items()}
    for piece in sorted(set(pretokenize("\n".join(SLICES[name][:30]), sb.SUPERWORD_PATTERN)))[:200]:
        ids = list(piece.encode())
        for left, right in tok.merges:  # replay every merge, as training did to every piece
            ids = merge_unchecked(ids, (id_of[left], id_of[right]), id_of[left + right])
        assert tok.encode(piece) == ids


def test_round_trip_on_every_bundled_corpus(mixed):
    for corpus in list_corpora():
        text = load_text(corpus.name)[:20_000]
        assert mixed.decode(mixed.encode_ordinary(text)) == text, corpus.name


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_round_trip_on_any_text(mixed, text):
    assert mixed.decode(mixed.encode_ordinary(text)) == text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Once", " upon", " a", " time", ",", " 12", "3", "\n", "\n\n", " ", "我们",
                                 "。", ENDOFTEXT]), max_size=30), st.data())
def test_encode_iterable_equals_encode_on_any_chunking(mixed, fragments, draw):
    text = "".join(fragments)
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    chunks = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    assert list(encode_iterable(mixed, chunks, "all")) == mixed.encode(text, "all")


def test_hugging_face_encodes_the_same_ids(mixed):
    """SuperBPE's tokenizer.json runs in HF tokenizers: its BPE model, merges by rank, gives our ids."""
    hf = sb.hf_tokenizer(mixed)
    texts = [*tinystories_documents()[200:230], *LUXUN_TAIL, load_text("timemachine")[:20_000]]
    assert [hf.encode(text).ids for text in texts] == [mixed.encode_ordinary(text) for text in texts]


def test_superwords_shorten_english(mixed):
    bpe = train_tokenizer([ENDOFTEXT.join(STORIES), *LUXUN], 900, [ENDOFTEXT])
    held_out = "\n".join(tinystories_documents()[100:120])
    assert len(mixed.encode_ordinary(held_out)) < 0.95 * len(bpe.encode_ordinary(held_out))


def test_save_and_load_keep_both_stages(mixed, tmp_path):
    loaded = manifest.load(manifest.save(mixed, tmp_path / "superbpe.json"))
    assert loaded.pattern == sb.SUPERWORD_PATTERN
    assert sb.superword_merges(loaded) == sb.superword_merges(mixed)
    assert loaded.metadata["trainer"]["transition"] == 580


def test_a_file_trains_like_its_text(tmp_path):
    text = "\n".join(LUXUN[:40]) + "\n" + "\n".join(STORIES[:20])
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    assert sb.train_superbpe(path, 700, 500).merges == sb.train_superbpe([text], 700, 500).merges


# --- bad input -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(vocab_size=800, transition=801), ValueError, "transition must be a vocabulary size from 256"),
    (dict(vocab_size=800, transition=255), ValueError, "transition"),
    (dict(vocab_size=800, transition=256, special_tokens=[ENDOFTEXT]), ValueError, "257"),
    (dict(vocab_size=200, transition=200), ValueError, "vocab_size must be"),
    (dict(vocab_size=800, transition=600.0), TypeError, "transition"),
    (dict(vocab_size=800, transition=True), TypeError, "transition"),
    (dict(vocab_size=800, transition=600, max_words=0), ValueError, "max_words"),
    (dict(vocab_size=800, transition=600, forbidden=": "), TypeError, "forbidden"),
    (dict(vocab_size=800, transition=600, forbidden=[""]), ValueError, "forbidden"),
    (dict(vocab_size=800, transition=600, superword_pattern="(a)|."), ValueError, "capturing group"),
    (dict(vocab_size=800, transition=600, progress="yes"), TypeError, "progress"),
])
def test_bad_arguments_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        sb.train_superbpe(["some text"], **kwargs)


@pytest.mark.parametrize("texts", [[], [""], [ENDOFTEXT]])
def test_empty_text_is_refused(texts):
    with pytest.raises(ValueError, match="no ordinary text"):
        sb.train_superbpe(texts, 300, 280, [ENDOFTEXT])


def test_a_plain_tokenizer_has_no_stage_two():
    with pytest.raises(ValueError, match="not trained by train_superbpe"):
        sb.superword_merges(train_tokenizer(["abc abc"], 258))
    with pytest.raises(TypeError, match="tokenizer"):
        sb.stage_one_merges("tokenizer")
    with pytest.raises(TypeError, match="token"):
        sb.bridges_pretokens("a b")


def test_the_tokenizer_encodes_with_stage_two_and_records_stage_one(mixed):
    assert mixed.pattern == sb.SUPERWORD_PATTERN
    assert mixed.metadata["trainer"]["pattern"] == GPT2_PATTERN
