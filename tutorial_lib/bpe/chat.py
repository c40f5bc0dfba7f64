"""A conversation as one row of ids plus a supervision mask, as nanochat renders chats.

Roles are marked by special tokens, never by text: a user who types "<|assistant_start|>" gets those
characters encoded as ordinary text, so no input can forge a turn. The mask marks what the model
learns to predict: the assistant's words and its closing token (so it learns to stop), not the
user's text.
"""

from __future__ import annotations

from typing import Any, Sequence

from tutorial_lib._checks import check_choice, check_int_list, check_sequence, check_str, check_type
from tutorial_lib.packing.batch import IGNORE_INDEX

BOS, USER_START, USER_END = "<|bos|>", "<|user_start|>", "<|user_end|>"
ASSISTANT_START, ASSISTANT_END = "<|assistant_start|>", "<|assistant_end|>"
CHAT_SPECIAL_TOKENS = (BOS, USER_START, USER_END, ASSISTANT_START, ASSISTANT_END)
ROLES = ("user", "assistant")


def render_conversation(tokenizer: Any, messages: Sequence[dict[str, str]]
                        ) -> tuple[list[int], list[int]]:
    """(ids, mask) for `messages`, dicts {"role", "content"} alternating user, assistant, ...;
    mask[i] is 1 where the model learns to predict ids[i]."""
    special = getattr(tokenizer, "special_tokens", {})
    missing = [token for token in CHAT_SPECIAL_TOKENS if token not in special]
    if missing:
        raise ValueError(f"tokenizer lacks the chat special tokens {missing}; train it with "
                         "special_tokens=CHAT_SPECIAL_TOKENS")
    ids, mask = [special[BOS]], [0]
    messages = check_sequence(messages, "messages", "a list of {'role', 'content'} dicts")
    for i, message in enumerate(messages):
        check_type(message, f"messages[{i}]", dict, "a dict with 'role' and 'content'")
        role = check_choice(message.get("role"), f"messages[{i}]['role']", ROLES)
        if role != ROLES[i % 2]:
            raise ValueError(f"messages must alternate user, assistant, user, ...: messages[{i}] "
                             f"is {role!r}")
        content = check_str(message.get("content"), f"messages[{i}]['content']")
        # Role markers are special ids; the content is ordinary text, whatever it looks like.
        start, end = (USER_START, USER_END) if role == "user" else (ASSISTANT_START, ASSISTANT_END)
        content_ids = tokenizer.encode_ordinary(content)
        learn = int(role == "assistant")
        ids += [special[start], *content_ids, special[end]]
        mask += [0] + [learn] * len(content_ids) + [learn]
    return ids, mask


def inputs_and_targets(row: Sequence[int], mask: Sequence[int] | None = None
                       ) -> tuple[list[int], list[int]]:
    """A row of T + 1 ids -> T inputs and T targets, targets[t] = row[t + 1] (the next token); with
    a `mask` (one 0/1 per id of `row`), an unsupervised target becomes IGNORE_INDEX."""
    row = check_int_list(row, "row")
    if len(row) < 2:
        raise ValueError(f"row must hold at least 2 ids (T + 1 with T >= 1), got {len(row)}")
    targets = row[1:]
    if mask is not None:
        mask = check_int_list(mask, "mask")
        if len(mask) != len(row) or set(mask) - {0, 1}:
            raise ValueError(f"mask must be one 0 or 1 per id of row ({len(row)} ids), got "
                             f"{mask!r}")
        targets = [t if m else IGNORE_INDEX for t, m in zip(targets, mask[1:])]
    return row[:-1], targets
