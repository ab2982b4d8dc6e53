"""One logical call over HTTP: the request built from an operation, retried when that is safe.

Retried: 429, 502 and 503 (docs/api.md#errors: never charged, or refunded), a 409 for a duplicate
still in flight, and calls that got no complete answer. Every attempt of one call carries the same
`Idempotency-Key` (docs/api.md#idempotency), so a retry of a call that was in fact served is
replayed, not charged again. The wait honours `Retry-After`; otherwise it is exponential with jitter,
so clients failing together do not come back together.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from ._generated.operations import OMITTED, Operation
from .errors import ApiError, RdaError, TransportError, api_error

RETRIED_STATUSES = frozenset({429, 502, 503})
#: 409 codes that mean "the same request is still being served": try again shortly.
RETRIED_CONFLICTS = frozenset({"idempotency_in_progress"})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one call."""

    retries: int = 4
    #: The first backoff, in seconds; it doubles on each retry, up to `max_delay`.
    base_delay: float = 0.5
    max_delay: float = 30.0
    #: A `Retry-After` longer than this is not waited for: the error is raised.
    max_retry_after: float = 120.0


def wire_value(value: Any) -> str:
    """A query value as the API reads it: booleans as `true`/`false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    json: dict[str, Any] | None


def build_request(operation: Operation, values: dict[str, Any], idempotency_key: str | None) -> Request:
    known = {python for python, _, _ in operation.arguments}
    unknown = sorted(set(values) - known)
    if unknown:
        raise TypeError(f"{operation.id} takes no parameter {', '.join(unknown)}; it takes {', '.join(sorted(known))}")
    path = operation.path
    params: dict[str, str] = {}
    headers = {"idempotency-key": idempotency_key or str(uuid.uuid4())}
    body: dict[str, Any] | None = {} if any(a[2] == "body" for a in operation.arguments) else None
    for python, wire, where in operation.arguments:
        value = values.get(python)
        if where == "body":
            if value is not OMITTED:
                body[wire] = value  # type: ignore[index]
        elif value is None:
            continue
        elif where == "path":
            path = path.replace("{" + wire + "}", quote(str(value), safe=""))
        elif where == "query":
            params[wire] = wire_value(value)
        else:
            headers[wire] = str(value)
    # A POST whose fields were all left out (resume without max_credits) sends no body at all.
    return Request(operation.method, path, params, headers, body or None)


def retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def error_of(response: httpx.Response) -> ApiError:
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    return api_error(
        response.status_code, body, response.headers.get("x-request-id"), retry_after_seconds(response)
    )


def delay_before_retry(failure: RdaError, retry: int, policy: RetryPolicy) -> float | None:
    """Seconds to wait before retry number `retry` (0-based), or None to give up and raise."""
    if retry >= policy.retries:
        return None
    if isinstance(failure, ApiError):
        retried = failure.status in RETRIED_STATUSES or (
            failure.status == 409 and failure.code in RETRIED_CONFLICTS
        )
        if not retried:
            return None
        if failure.retry_after is not None:
            return failure.retry_after if failure.retry_after <= policy.max_retry_after else None
    ceiling = min(policy.max_delay, policy.base_delay * 2.0**retry)
    return ceiling / 2 + random.random() * ceiling / 2


def _outcome(response: httpx.Response) -> httpx.Response | ApiError:
    return response if response.status_code < 400 else error_of(response)


def send(http: httpx.Client, request: Request, policy: RetryPolicy) -> httpx.Response:
    """The answer to `request`, after the retries the policy allows; raises the last failure."""
    for retry in range(policy.retries + 1):
        try:
            outcome: httpx.Response | RdaError = _outcome(_attempt(http, request))
        except httpx.TransportError as failure:
            outcome = TransportError(f"no answer from the API: {failure!r}")
        if isinstance(outcome, httpx.Response):
            return outcome
        delay = delay_before_retry(outcome, retry, policy)
        if delay is None:
            raise outcome
        time.sleep(delay)
    raise AssertionError("unreachable: the last retry raises")


async def send_async(http: httpx.AsyncClient, request: Request, policy: RetryPolicy) -> httpx.Response:
    """`send`, for the AsyncClient."""
    for retry in range(policy.retries + 1):
        try:
            outcome: httpx.Response | RdaError = _outcome(await _attempt_async(http, request))
        except httpx.TransportError as failure:
            outcome = TransportError(f"no answer from the API: {failure!r}")
        if isinstance(outcome, httpx.Response):
            return outcome
        delay = delay_before_retry(outcome, retry, policy)
        if delay is None:
            raise outcome
        await asyncio.sleep(delay)
    raise AssertionError("unreachable: the last retry raises")


def _attempt(http: httpx.Client, request: Request) -> httpx.Response:
    response = http.request(
        request.method, request.path, params=request.params, headers=request.headers, json=request.json
    )
    response.read()
    return response


async def _attempt_async(http: httpx.AsyncClient, request: Request) -> httpx.Response:
    response = await http.request(
        request.method, request.path, params=request.params, headers=request.headers, json=request.json
    )
    await response.aread()
    return response
