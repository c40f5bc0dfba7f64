"""Chapter 00 exercises: the reference answers come from Python itself."""

from tutorial_lib.exercises import Case, Exercise, register

register(Exercise(
    key="00.utf8_length",
    title="练习 0：一段文字占多少字节",
    concept="len(text) 数的是字符；模型读的却是 UTF-8 字节：一个汉字占 3 个字节，一个 emoji 占 4 "
            "个。",
    recipe="先用 text.encode('utf-8') 把字符串变成 bytes，再对这个 bytes 取 len。",
    make_cases=lambda: [Case((text,), len(text.encode("utf-8"))) for text in
                        ["hello", "", "你好，世界", "naïve café", "🙂👍",
                         "GPT-4 的词表有 100277 个 token"]],
))
