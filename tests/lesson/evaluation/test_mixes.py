"""Training mixes: byte budgets, bad mixes, scores on FLORES, scripts of learned entries, quotas."""

import pytest

from tutorial_lib import data
from tutorial_lib.text import compare
from tutorial_lib.evaluation import mixes
from tutorial_lib.bpe.trainer import train_tokenizer

EN = ["the cat sat on the mat. " * 20, "a dog and a cat. " * 20]
ZH = ["我们今天去公园散步，天气很好。" * 10, "他说他明天不来了。" * 10]


def test_take_bytes_cuts_at_a_character_boundary():
    taken = mixes.take_bytes(["ab", "你好吗"], 6)
    assert taken == ["ab", "你"]  # 2 + 3 bytes; the next character would pass 6
    assert mixes.take_bytes(["abc"], 0) == []


def test_take_bytes_refuses_a_pool_that_is_too_small():
    with pytest.raises(ValueError, match="fewer than"):
        mixes.take_bytes(["abc"], 10)


def test_make_mix_gives_each_language_its_share_of_the_bytes():
    mix = mixes.make_mix(EN, ZH, (0.8, 0.2), 600)
    assert mix.english_bytes == 480
    assert 600 - 480 - 2 <= mix.chinese_bytes <= 120
    assert mix.label == "英80/中20"
    assert mix.texts == [*mix.english, *mix.chinese]


@pytest.mark.parametrize("shares, match", [((0.5, 0.4), "sum to 1"), ((1.2, -0.2), r"shares\[0\]"),
                                           ((0.5,), "pair"), ({0.5, 0.4}, "shares")])
def test_bad_shares_are_refused(shares, match):
    with pytest.raises((ValueError, TypeError), match=match):
        mixes.make_mix(EN, ZH, shares, 100)


def test_an_empty_pool_with_a_share_is_refused():
    with pytest.raises(ValueError, match="chinese"):
        mixes.make_mix(EN, ["", " "], (0.5, 0.5), 100)
    assert mixes.make_mix(EN, [], (1.0, 0.0), 100).chinese == ()


def test_vocabulary_too_small_is_refused():
    mix = mixes.make_mix(EN, ZH, (0.5, 0.5), 400)
    with pytest.raises(ValueError, match="vocab_size"):
        mixes.train_bpe(mix, 256)
    with pytest.raises(ValueError, match="vocab_size"):
        mixes.train_unigram(mix, 5)


def test_training_is_deterministic_and_scripts_follow_the_mix():
    mix = mixes.make_mix(EN, ZH, (0.5, 0.5), 800)
    first, second = mixes.train_bpe(mix, 300), mixes.train_bpe(mix, 300)
    assert first.merges == second.merges
    scripts = mixes.learned_scripts("mix", first)
    assert scripts.total == len(first.merges)
    assert scripts.counts["han"] > 0 and scripts.counts["latin"] > 0
    english_only = mixes.learned_scripts("en", mixes.train_bpe(
        mixes.make_mix(EN, ZH, (1.0, 0.0), 800), 300))
    assert english_only.counts["han"] == 0


def test_unigram_scripts_leave_out_byte_pieces():
    mix = mixes.make_mix(EN, ZH, (0.5, 0.5), 800)
    model = mixes.train_unigram(mix, 60)
    scripts = mixes.learned_scripts("u", model)
    assert scripts.total == len(model.log_probs)
    assert scripts.counts["partial"] == 0


def test_score_matches_direct_counts():
    tok = mixes.train_bpe(mixes.make_mix(EN, ZH, (0.5, 0.5), 800), 300)
    result = mixes.score(compare.from_tokenizer("t", tok), lines=20)
    english, chinese = data.load_parallel("eng_Latn")[:20], data.load_parallel("zho_Hans")[:20]
    en_tokens = sum(len(tok.encode_ordinary(line)) for line in english)
    zh_tokens = sum(len(tok.encode_ordinary(line)) for line in chinese)
    assert result.chinese_premium.corpus == pytest.approx(zh_tokens / en_tokens)
    assert result.english_premium.corpus == pytest.approx(en_tokens / zh_tokens)
    assert result.english_bytes_per_token == pytest.approx(
        sum(len(s.encode()) for s in english) / en_tokens)
    with pytest.raises(ValueError, match="lines"):
        mixes.score(compare.from_tokenizer("t", tok), lines=0)


def test_quota_takes_the_first_merges_of_each_list():
    mix = mixes.make_mix(EN, ZH, (0.5, 0.5), 800)
    english, chinese = mixes.train_each(mix, 300)
    assert len(english.merges) >= 10 and len(chinese.merges) >= 20
    quota = mixes.quota_tokenizer(english, chinese, 10, 20)
    made = {a + b for a, b in quota.merges}
    assert {a + b for a, b in english.merges[:10]} <= made
    assert {a + b for a, b in chinese.merges[:20]} <= made
    assert len(quota.merges) <= 30
    assert mixes.quota_tokenizer(english, chinese, 10, 0).merges == english.merges[:10]
    text = "the cat 我们今天"
    assert quota.decode(quota.encode_ordinary(text)) == text
    split = mixes.quota_split(english, chinese, 30, 1 / 3)
    assert split.merges == quota.merges
    with pytest.raises(ValueError, match="english_merges"):
        mixes.quota_tokenizer(english, chinese, len(english.merges) + 1, 0)
    with pytest.raises(ValueError, match="special tokens"):
        mixes.quota_tokenizer(train_tokenizer(EN, 260, ["<|x|>"]), chinese, 1, 1)
    with pytest.raises(ValueError, match="both languages"):
        mixes.train_each(mixes.make_mix(EN, ZH, (1.0, 0.0), 100), 300)
