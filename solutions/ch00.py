"""Chapter 00: reference solutions."""


def utf8_length(text: str) -> int:
    return len(text.encode("utf-8"))
