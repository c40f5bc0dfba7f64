"""A conversation as one row of ids plus a supervision mask, the way nanochat renders chats for
fine-tuning.

Roles are marked by special tokens, never by text: a user who types "<|assistant_start|>" gets those
characters encoded as ordinary text (`encode_ordinary`), so no input can forge a turn. The mask says
which positions the model is trained to predict: the assistant's words and its closing token (so it
learns to stop), but not the user's text, which is context only. `inputs_and_targets` cuts a row of
T + 1 tokens into the T inputs and the T next tokens the model must predict.
"""

from __future__ import annotations

from typing import Any, Sequence

from tutorial_lib._checks import check_choice, check_int_list, check_sequence, check_str, check_type
from tutorial_lib.packing.batch import IGNORE_INDEX

BOS, USER_START, USER_END = "<|bos|>", "<|user_start|>", "<|user_end|>"
ASSISTANT_START, ASSISTANT_END = "<|assistant_start|>", "<|assistant_end|>"
CHAT_SPECIAL_TOKENS = (BOS, USER_START, USER_END, ASSISTANT_START, ASSISTANT_END)
ROLES = ("user", "assistant")


def render_conversation(
    tokenizer: Any, messages: Sequence[dict[str, str]]
) -> tuple[list[int], list[int]]:
    """(ids, mask) for `messages`, dicts {"role": "user" or "assistant", "content": str} that
    alternate, user first. mask[i] is 1 where the model learns to predict ids[i]: assistant content
    and its end token."""
    special = _special_ids(tokenizer)
    ids, mask = [special[BOS]], [0]
    for i, message in enumerate(
        check_sequence(messages, "messages", "a list of {'role', 'content'} dicts")
    ):
        check_type(message, f"messages[{i}]", dict, "a dict with 'role' and 'content'")
        role = check_choice(message.get("role"), f"messages[{i}]['role']", ROLES)
        if role != ROLES[i % 2]:
            raise ValueError(
                f"messages must alternate user, assistant, user, ...: messages[{i}] is {role!r}"
            )
        content = tokenizer.encode_ordinary(
            check_str(message.get("content"), f"messages[{i}]['content']")
        )
        start, end = (USER_START, USER_END) if role == "user" else (ASSISTANT_START, ASSISTANT_END)
        learn = int(role == "assistant")
        ids += [special[start], *content, special[end]]
        mask += [0] + [learn] * len(content) + [learn]
    return ids, mask


def _special_ids(tokenizer: Any) -> dict[str, int]:
    specials = getattr(tokenizer, "special_tokens", {})
    missing = [token for token in CHAT_SPECIAL_TOKENS if token not in specials]
    if missing:
        raise ValueError(f"tokenizer lacks the chat special tokens {missing}; train it with "
                         "special_tokens=CHAT_SPECIAL_TOKENS")
    return specials


def inputs_and_targets(
    row: Sequence[int], mask: Sequence[int] | None = None
) -> tuple[list[int], list[int]]:
    """A row of T + 1 ids -> T inputs and T targets, targets[t] = row[t + 1] (the next token).

    With a `mask` (one 0/1 per id of `row`), a target whose position is not supervised becomes
    IGNORE_INDEX, so the loss skips it.
    """
    row = check_int_list(row, "row")
    if len(row) < 2:
        raise ValueError(f"row must hold at least 2 ids (T + 1 with T >= 1), got {len(row)}")
    targets = row[1:]
    if mask is not None:
        mask = check_int_list(mask, "mask")
        if len(mask) != len(row) or set(mask) - {0, 1}:
            raise ValueError(
                f"mask must be one 0 or 1 per id of row ({len(row)} ids), got {mask!r}"
            )
        targets = [t if m else IGNORE_INDEX for t, m in zip(targets, mask[1:])]
    return row[:-1], targets
