"""The client's tests run against a running stack over real HTTP, named by the environment:

    RDA_BASE_URL      the gateway        RDA_API_KEY  a key with credits (each test measures its own spend)
    RDA_SIM_URL       the upstream simulator (its fault control, docs/operations.md#fault-control)
    RDA_SLOW_API_KEY  a key limited to 1 request a second, burst 1
    RDA_SPARE_API_KEY a key with a few credits that no other test uses

test/python-client.test.ts starts a stack and sets them.
"""

from __future__ import annotations

import os
import time

import httpx
import pytest

import rda

DAY = 86_400


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set: these tests need a running stack")
    return value


@pytest.fixture(scope="session")
def base_url() -> str:
    return _env("RDA_BASE_URL")


@pytest.fixture(scope="session")
def api_key() -> str:
    return _env("RDA_API_KEY")


@pytest.fixture(scope="session")
def slow_api_key() -> str:
    return _env("RDA_SLOW_API_KEY")


@pytest.fixture(scope="session")
def spare_api_key() -> str:
    return _env("RDA_SPARE_API_KEY")


@pytest.fixture(scope="session")
def sim_url() -> str:
    return _env("RDA_SIM_URL")


@pytest.fixture()
def client(base_url: str, api_key: str):
    with rda.Client(api_key, base_url=base_url) as client:
        yield client


@pytest.fixture(scope="session")
def subreddit() -> str:
    """The simulator's busiest community: a month of its posts spans several pages."""
    return os.environ.get("RDA_TEST_SUBREDDIT", "dataisbeautiful")


@pytest.fixture(scope="session")
def window() -> tuple[int, int]:
    """A settled month: 40 to 10 days ago."""
    before = int(time.time()) - 10 * DAY
    return before - 30 * DAY, before


def balance(client: rda.Client) -> int:
    return client.get_account().data["credits_balance"]


def raw_get(base_url: str, api_key: str, path: str, params: dict) -> dict:
    """A request made without the client: what the API itself answers."""
    response = httpx.get(f"{base_url}{path}", params=params, headers={"x-api-key": api_key}, timeout=60)
    response.raise_for_status()
    return response.json()
