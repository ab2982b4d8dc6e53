"""Retries: a 502 retried under the same Idempotency-Key and charged once, a 429 after its Retry-After,
a replay never charged twice, and nothing retried that would fail the same way."""

from __future__ import annotations

import time

import httpx

import rda
from conftest import balance


def test_a_forced_502_is_retried_and_charged_once(base_url, api_key, sim_url, subreddit) -> None:
    attempts: list[tuple[int, str]] = []

    def clear_the_fault_after_a_502(response: httpx.Response) -> None:
        attempts.append((response.status_code, response.request.headers["idempotency-key"]))
        if response.status_code == 502:
            httpx.delete(f"{sim_url}/__sim/faults", timeout=10)

    http = httpx.Client(base_url=base_url, timeout=60, event_hooks={"response": [clear_the_fault_after_a_502]})
    policy = rda.RetryPolicy(base_delay=0.05)
    with rda.Client(api_key, base_url=base_url, http_client=http, retry=policy) as client:
        start = balance(client)
        attempts.clear()
        fault = {"mode": "error", "rate": 1, "path": "/api/subreddits"}
        httpx.post(f"{sim_url}/__sim/faults", json=fault, timeout=10).raise_for_status()
        try:
            rules = client.get_subreddit_rules(subreddit)
        finally:
            httpx.delete(f"{sim_url}/__sim/faults", timeout=10)
        assert [status for status, _ in attempts] == [502, 200]
        assert len({key for _, key in attempts}) == 1, "every attempt of one call carries one Idempotency-Key"
        assert rules.credits_used == 1
        assert rules.credits_remaining == start - 1 == balance(client)


def test_a_replayed_call_is_not_charged_again(base_url, spare_api_key, subreddit) -> None:
    # A key that stored no other answers: the main key's paging may have filled its share of the
    # replay store (docs/api.md#idempotency), past which answers are served but not kept.
    with rda.Client(spare_api_key, base_url=base_url) as client:
        start = balance(client)
        first = client.list_posts(subreddit=subreddit, limit=2, idempotency_key="python-client-replay-1")
        again = replayed(lambda: client.list_posts(subreddit=subreddit, limit=2, idempotency_key="python-client-replay-1"))
        assert again.replayed and again.data == first.data
        assert again.credits_remaining == first.credits_remaining == start - 1 == balance(client)


def replayed(call):
    """The call's answer once the API has stored the first one: it stores an answer just after writing
    it, and a duplicate sent before that gets 409 (docs/api.md#idempotency; once error bodies carry
    `code`, the client retries that 409 itself)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return call()
        except rda.ConflictError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_refusal_that_would_fail_again_is_not_retried(base_url) -> None:
    calls: list[int] = []
    http = httpx.Client(base_url=base_url, timeout=30, event_hooks={"response": [lambda r: calls.append(r.status_code)]})
    with rda.Client("rdk_" + "B" * 43, base_url=base_url, http_client=http) as client:
        try:
            client.get_account()
        except rda.AuthenticationError:
            pass
    assert calls == [401]


def test_a_429_is_retried_no_sooner_than_its_retry_after(base_url, slow_api_key) -> None:
    seen: list[tuple[int, str | None, float]] = []

    def record(response: httpx.Response) -> None:
        seen.append((response.status_code, response.headers.get("retry-after"), time.monotonic()))

    http = httpx.Client(base_url=base_url, timeout=60, event_hooks={"response": [record]})
    # A backoff of 10 ms: a retry that came sooner than Retry-After would show here.
    policy = rda.RetryPolicy(base_delay=0.01)
    with rda.Client(slow_api_key, base_url=base_url, http_client=http, retry=policy) as client:
        client.get_account()
        account = client.get_account()  # the key's one token is spent: 429, then served
    statuses = [status for status, _, _ in seen]
    assert statuses[0] == 200 and statuses[-1] == 200 and 429 in statuses
    refused = statuses.index(429)
    waited = seen[refused + 1][2] - seen[refused][2]
    assert waited >= float(seen[refused][1]) - 0.05
    assert account.credits_used == 0

