"""Verifying a monitor's webhooks (docs/api.md#monitor-webhooks), per Standard Webhooks, with the
standard library alone.

The signature is HMAC-SHA256, keyed with the base64 bytes after `whsec_`, over
`{webhook-id}.{webhook-timestamp}.{body}`; `webhook-signature` holds space-separated `v1,<base64>`
entries (two while a rotated secret is still valid: either verifies). A timestamp further than
`tolerance` seconds from now is refused, so a captured request cannot be replayed later. Receivers
should also drop a `webhook-id` they have processed already: a batch whose acceptance was not seen
is sent again under the same id.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from email.message import Message
from typing import Any, Mapping

from .errors import WebhookVerificationError

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_SECONDS = 300


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, str] | Message,
    secret: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """The event (`{type, timestamp, data}`) once its signature verified; raises WebhookVerificationError.

    `body` must be the request's bytes exactly as received: the signature covers them. `headers` is
    any mapping of names to values, or `http.server`'s `self.headers`.
    """
    payload = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = _header(lowered, "webhook-id")
    timestamp = _header(lowered, "webhook-timestamp")
    signatures = _header(lowered, "webhook-signature")
    _check_timestamp(timestamp, time.time() if now is None else now, tolerance)
    expected = _sign(_secret_bytes(secret), message_id, timestamp, payload)
    for entry in signatures.split():
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode(), expected.encode()):
            try:
                event: dict[str, Any] = json.loads(payload)
                return event
            except ValueError as bad:
                raise WebhookVerificationError("the signed body is not JSON") from bad
    raise WebhookVerificationError("no signature matches the secret")


def sign_webhook(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` value for a body (what the service sends; useful in tests)."""
    return f"v1,{_sign(_secret_bytes(secret), message_id, str(timestamp), body)}"


def _header(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name)
    if not value:
        raise WebhookVerificationError(f"missing the {name} header")
    return value


def _check_timestamp(timestamp: str, now: float, tolerance: int) -> None:
    try:
        sent = int(timestamp)
    except ValueError as bad:
        raise WebhookVerificationError("webhook-timestamp is not a number") from bad
    if abs(now - sent) > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp is more than {tolerance} s from now")


def _secret_bytes(secret: str) -> bytes:
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except ValueError as bad:
        raise WebhookVerificationError("the secret is not a whsec_ secret") from bad


def _sign(key: bytes, message_id: str, timestamp: str, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
