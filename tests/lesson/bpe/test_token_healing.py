import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.bpe.token_healing import CUT_KINDS, cut_kinds, cut_place, heal, is_prefix
from tutorial_lib.bpe.trainer import train_tokenizer


@pytest.fixture(scope="module")
def cl100k_vocab(cl100k):
    return {cl100k.encode_single_token(token): token for token in cl100k.token_byte_values()}


def cut_kind(encode, token_bytes, text, cut):
    """The kind of one cut, read from `cut_kinds` grouped by cut position."""
    counts = cut_kinds(encode, token_bytes, [text], by=lambda text, at: at)[cut]
    return next(kind for kind, n in counts.items() if n)


def kind(cl100k, text, cut):
    return cut_kind(cl100k.encode_ordinary, cl100k.decode_single_token_bytes, text, cut)


def test_is_prefix():
    assert is_prefix([], [1]) and is_prefix([1, 2], [1, 2, 3]) and is_prefix([1], [1])
    assert not is_prefix([1, 3], [1, 2, 3]) and not is_prefix([1, 2], [1])


def test_a_word_cut_in_the_middle_is_healed_by_one_token(cl100k, cl100k_vocab):
    """"Hello wor" ends in " wor", which "Hello world" never uses; healing allows " world"."""
    prompt, full = cl100k.encode_ordinary("Hello wor"), cl100k.encode_ordinary("Hello world")
    assert not is_prefix(prompt, full) and kind(cl100k, "Hello world", 9) == "healed"
    healed = heal(prompt, cl100k_vocab)
    assert healed.ids == prompt[:-1] and healed.removed == b" wor"
    assert full[len(healed.ids)] in healed.allowed
    assert healed.allowed == sorted(i for i, t in cl100k_vocab.items() if t.startswith(b" wor"))
    assert prompt[-1] in healed.allowed  # the backed-off token itself stays allowed


def test_the_kinds_of_cut(cl100k):
    assert kind(cl100k, "Hello world", 5) == "stable"  # before the space: " world" is whole
    assert kind(cl100k, "Hello world", 6) == "healed"  # a trailing space: " " then " world"
    assert kind(cl100k, "Hello world", 10) == "unhealed"  # " wor" + "l": two tokens changed
    assert kind(cl100k, "鲁迅说：“其实地上本没有路。”", 11) == "healed"  # 没 | 没有


def test_healing_a_han_character_allows_the_words_it_begins(cl100k, cl100k_vocab):
    healed = heal(cl100k.encode_ordinary("本没"), cl100k_vocab)
    assert healed.removed == "没".encode()
    words = [i for i in healed.allowed if cl100k_vocab[i] == "没有".encode()]
    assert cl100k.encode_ordinary("没有") == words


def test_cut_kinds_count_every_cut_once_and_group_them(cl100k):
    texts = ["Hello world, it is me.", "鲁迅说：“其实地上本没有路。”", "ab"]
    counts = cut_kinds(cl100k.encode_ordinary, cl100k.decode_single_token_bytes, texts, cut_place)
    cuts = sum(len(t) - 1 for t in texts)
    assert sum(n for group in counts.values() for n in group.values()) == cuts
    assert counts["空格之前"] == {"stable": 4, "healed": 0, "unhealed": 0}
    assert all(set(group) == set(CUT_KINDS) for group in counts.values())
    plain = cut_kinds(cl100k.encode_ordinary, cl100k.decode_single_token_bytes, texts)
    assert list(plain) == ["全部"] and sum(plain["全部"].values()) == cuts


def test_cut_place():
    text = "ab c。汉字"
    assert [cut_place(text, k) for k in range(1, len(text))] == [
        "词中间", "空格之前", "空格之后", "标点、换行旁", "标点、换行旁", "汉字等非 ASCII 文字之间"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab 汉字.", min_size=2, max_size=12), st.data())
def test_stable_means_the_prefix_tokens_are_a_prefix(text, draw):
    """With this library's own Tokenizer: the kinds agree with their definitions."""
    tok = train_tokenizer(["ab ab abab 汉字汉字. a b"], 270)
    cut = draw.draw(st.integers(1, len(text) - 1))
    got = cut_kind(tok.encode_ordinary, tok.token_bytes, text, cut)
    prompt, full = tok.encode_ordinary(text[:cut]), tok.encode_ordinary(text)
    assert (got == "stable") == is_prefix(prompt, full)
    if got == "healed":
        assert full[len(prompt) - 1] in heal(prompt, tok.vocab).allowed


def test_healing_allows_every_token_that_begins_with_the_removed_bytes():
    vocab = {0: b"a", 1: b"ab", 2: b"b"}
    assert heal([2, 0], vocab).allowed == [0, 1] and heal([2], vocab).allowed == [2]


@pytest.mark.parametrize("call, error, message", [
    (lambda: heal([], {0: b"a"}), ValueError, "at least one id"),
    (lambda: heal([5], {0: b"a"}), ValueError, r"prompt_ids\[-1\] = 5"),
    (lambda: heal([0], [b"a"]), TypeError, "vocab"),
    (lambda: cut_kinds("encode", bytes, ["ab"]), TypeError, "encode"),
    (lambda: cut_kinds(list, bytes, ["ab", 3]), TypeError, r"texts\[1\]"),
])
def test_bad_arguments_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
