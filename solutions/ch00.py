"""Chapter 00: reference solutions, and the typical wrong answer each checker must reject."""


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))


WRONG_ANSWERS = {
    "utf8_length": len,  # counts characters, not bytes
}
