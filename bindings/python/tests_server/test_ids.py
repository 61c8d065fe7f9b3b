"""Session ids: a routing tag, then 256 random bits, checked for form before any store access."""

from __future__ import annotations

import base64

import pytest

from inactivity.server.ids import SESSION_ID_LENGTH, new_session_id, routing_tag, session_secret, valid_session_id


def test_an_id_is_its_tag_then_32_random_bytes_in_canonical_base64() -> None:
    ids = {new_session_id("tagTAG-_") for _ in range(200)}
    assert len(ids) == 200
    for i in ids:
        assert len(i) == SESSION_ID_LENGTH == 51 and i.startswith("tagTAG-_") and valid_session_id(i)
        secret = session_secret(i)
        assert len(secret) == 32 and base64.urlsafe_b64encode(secret).decode().rstrip("=") == i[8:]
    assert valid_session_id(new_session_id())   # a random tag (stores that route nothing)
    # The 43rd character of 32 bytes carries 2 zero bits: another one would be a second name of
    # the same 32 bytes, so it is refused.
    one = next(iter(ids))
    last = one[-1]
    for other in "ABCDabcd0189-_":
        forged = one[:-1] + other
        assert valid_session_id(forged) == (other in "AEIMQUYcgkosw048"), other
        if other != last and valid_session_id(forged):
            assert session_secret(forged) != session_secret(one)
    for bad in ("short", "tagTAG-", "tagTAG-_x", "tag TAG-", "é" * 8, 12345678):
        with pytest.raises(ValueError, match="tag"):
            new_session_id(bad)  # type: ignore[arg-type]


def test_a_routing_tag_is_a_keyed_hash_of_the_user() -> None:
    a, b = b"k" * 32, b"K" * 32
    assert routing_tag(a, "alice") == routing_tag(a, "alice") != routing_tag(a, "bob")
    assert routing_tag(a, "alice") != routing_tag(b, "alice")   # another key, another tag: no name in it
    assert len(routing_tag(a, "alice")) == 8 and valid_session_id(new_session_id(routing_tag(a, "alice")))
