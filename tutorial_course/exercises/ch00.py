"""Chapter 00 exercises: the reference answers come from Python itself."""

from __future__ import annotations

from tutorial_course.exercises import Case, Exercise, draw, register

# scripts of 1 to 4 UTF-8 bytes per character, for the hidden cases' random texts
_ALPHABET = "ab Z9,.\néßñ中文字，。🙂👍🏽"


def _length_cases(seed: int | None = None) -> list[Case]:
    texts = ["hello", "", "你好，世界", "naïve café", "🙂👍", "GPT-4 的词表有 100277 个 token"]
    if seed is not None:  # the public cases are all hand-written; hidden ones add random texts
        rng = draw(seed, 0)
        texts += ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 20)))
                  for _ in range(10)]
    return [Case((text,), len(text.encode("utf-8"))) for text in texts]


register(Exercise(
    key="00.utf8_length",
    points=1,
    title="练习 0：一段文字占多少字节",
    concept="len(text) 数的是字符；模型读的却是 UTF-8 字节：一个汉字占 3 个字节，一个 emoji 占 4 "
            "个。",
    recipe="先用 text.encode('utf-8') 把字符串变成 bytes，再对这个 bytes 取 len。",
    make_cases=_length_cases,
))
