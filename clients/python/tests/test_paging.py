"""Paging as docs/api.md#pagination says, row for row with the API, and its rows as DataFrames."""

from __future__ import annotations

import asyncio

import rda
from conftest import balance, raw_get


def page_by_hand(base_url: str, api_key: str, params: dict) -> tuple[list[dict], int]:
    """The documented walk, with plain HTTP: the cursor as before (desc) or after (asc), until has_more is false."""
    bound = "after" if params.get("sort") == "asc" else "before"
    rows, pages, query = [], 0, dict(params)
    while True:
        body = raw_get(base_url, api_key, "/v1/posts", query)
        rows += body["data"]
        pages += 1
        if not body["_service"]["has_more"]:
            return rows, pages
        query[bound] = body["_service"]["cursor"]


def test_iter_pages_newest_first_exactly_as_the_api(client, base_url, api_key, subreddit, window) -> None:
    after, before = window
    params = {"subreddit": subreddit, "after": after, "before": before, "limit": 100}
    expected, pages = page_by_hand(base_url, api_key, params)
    assert pages > 2, "the month must span several pages"
    start = balance(client)
    posts = client.posts.iter(**params)
    rows = list(posts)
    assert [r["id"] for r in rows] == [r["id"] for r in expected]
    assert rows == expected
    assert posts.credits_used == pages
    assert posts.credits_remaining == start - pages == balance(client)


def test_iter_oldest_first_walks_forward_with_after(client, base_url, api_key, subreddit, window) -> None:
    after, before = window
    params = {"subreddit": subreddit, "after": after, "before": before, "limit": 37, "sort": "asc"}
    expected, _ = page_by_hand(base_url, api_key, params)
    rows = list(client.posts.iter(**params))
    assert [r["id"] for r in rows] == [r["id"] for r in expected]
    times = [r["created_utc"] for r in rows]
    assert times == sorted(times)


def test_short_pages_with_has_more_do_not_end_the_walk(client, subreddit, window) -> None:
    after, before = window
    params = {"subreddit": subreddit, "after": after, "before": before, "limit": 100}
    # With a phrase, each page is filtered after it was fetched: short (or empty) pages, has_more true.
    filtered = list(client.posts.pages(**params, q="the"))
    whole = list(client.posts.pages(**params))
    assert any(len(page) < 100 and page.has_more for page in filtered)
    assert len(filtered) == len(whole) and filtered[-1].has_more is False
    assert [page.cursor for page in filtered] == [page.cursor for page in whole]
    all_ids = [row["id"] for page in whole for row in page]
    matched = [row["id"] for page in filtered for row in page]
    assert 0 < len(matched) < len(all_ids)
    positions = [all_ids.index(row_id) for row_id in matched]
    assert positions == sorted(positions)


def test_pages_as_a_typed_dataframe(client, subreddit, window) -> None:
    after, before = window
    frame = client.posts.iter(subreddit=subreddit, after=after, before=before, limit=100).to_pandas()
    assert len(frame) > 100
    assert str(frame["created_utc"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["score"].dtype) == "Int64"
    assert str(frame["num_comments"].dtype) == "Int64"
    assert frame["created_utc"].is_monotonic_decreasing
    assert frame["created_utc"].min().timestamp() > after
    page = client.list_posts(subreddit=subreddit, limit=5)
    one = page.to_pandas()
    assert list(one["id"]) == [p["id"] for p in page]
    assert int(one["created_utc"].iloc[0].timestamp()) == page.data[0]["created_utc"]


def test_the_async_client_pages_the_same_rows(base_url, api_key, subreddit, window) -> None:
    after, before = window
    params = {"subreddit": subreddit, "after": after, "before": before, "limit": 100}

    async def walk() -> list[dict]:
        async with rda.AsyncClient(api_key, base_url=base_url) as client:
            return [row async for row in client.posts.iter(**params)]

    with rda.Client(api_key, base_url=base_url) as client:
        expected = list(client.posts.iter(**params))
    assert asyncio.run(walk()) == expected
