"""A 502 is retried under the same Idempotency-Key and the call is charged once."""

from __future__ import annotations

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


def test_a_replayed_call_is_not_charged_again(client, subreddit) -> None:
    start = balance(client)
    first = client.list_posts(subreddit=subreddit, limit=2, idempotency_key="python-client-replay-1")
    again = client.list_posts(subreddit=subreddit, limit=2, idempotency_key="python-client-replay-1")
    assert again.replayed and again.data == first.data
    assert balance(client) == start - 1


def test_a_refusal_that_would_fail_again_is_not_retried(base_url) -> None:
    calls: list[int] = []
    http = httpx.Client(base_url=base_url, timeout=30, event_hooks={"response": [lambda r: calls.append(r.status_code)]})
    with rda.Client("rdk_" + "B" * 43, base_url=base_url, http_client=http) as client:
        try:
            client.get_account()
        except rda.AuthenticationError:
            pass
    assert calls == [401]
