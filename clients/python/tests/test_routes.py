"""Every route the API declares has a method on both clients, and each one works over HTTP."""

from __future__ import annotations

import inspect
import re

import httpx

import rda
from conftest import balance


def snake(operation_id: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", operation_id).lower()


def test_every_declared_route_has_a_method_on_both_clients(base_url: str) -> None:
    document = httpx.get(f"{base_url}/openapi.json", timeout=30).json()
    declared = {
        operation["operationId"]
        for path, methods in document["paths"].items()
        if path.startswith("/v1/")
        for operation in methods.values()
    }
    assert len(declared) >= 20
    missing = [
        (operation_id, kind.__name__)
        for operation_id in sorted(declared)
        for kind in (rda.Client, rda.AsyncClient)
        if not callable(getattr(kind, snake(operation_id), None))
    ]
    assert missing == [], f"routes without a Python method: {missing}"
    for operation_id in declared:
        assert inspect.iscoroutinefunction(getattr(rda.AsyncClient, snake(operation_id)))
        assert rda.OPERATIONS[operation_id].path in document["paths"]


def test_the_data_routes_answer_with_their_credits(client: rda.Client, subreddit: str) -> None:
    start = balance(client)
    posts = client.list_posts(subreddit=subreddit, limit=5)
    assert 0 < len(posts) <= 5 and posts.credits_used == 1
    assert posts.credits_remaining == start - 1 and posts.request_id
    post = posts.data[0]
    comments = client.list_comments(subreddit=subreddit, limit=3)
    assert comments.credits_used == 1 and all("body" in c for c in comments)
    tree = client.get_comment_tree(post_id=post["id"], limit=10)
    assert tree.has_more is False and tree.cursor is None
    assert [p["id"] for p in client.list_posts(ids=post["id"])] == [post["id"]]
    communities = client.search_subreddits(q=subreddit[:4])
    assert any(c["name"].lower() == subreddit.lower() for c in communities)
    rules = client.get_subreddit_rules(subreddit)
    assert rules.data["subreddit"].lower() == subreddit.lower()
    profile = client.get_user_profile(post["author"])
    assert profile.credits_used == 1 and "user" in profile.data
    users = client.search_users(author_prefix=post["author"][:3], limit=5)
    assert isinstance(users.data, list)
    activity = client.get_activity(subreddit=subreddit, after="7d", interval="day")
    assert activity.data["total"] == sum(b["count"] for b in activity.data["buckets"])
    account = client.get_account()
    assert account.credits_used == 0
    # Nine paid calls, each exactly one credit; the account is free.
    assert account.data["credits_balance"] == start - 9 == account.credits_remaining


def test_an_error_carries_status_code_message_and_request_id(client: rda.Client) -> None:
    start = balance(client)
    try:
        client.list_posts(subreddit="x" * 40)
    except rda.BadRequestError as error:
        assert error.status == 400
        assert "subreddit" in error.message
        assert error.request_id
        assert error.code in (None, "invalid_parameter")
    else:
        raise AssertionError("a bad subreddit must be refused")
    try:
        client.get_monitor("mon_doesnotexist")
    except rda.NotFoundError as error:
        assert error.status == 404 and error.request_id
    else:
        raise AssertionError("an unknown monitor must be 404")
    assert balance(client) == start


def test_a_bad_key_is_refused_before_anything_is_charged(base_url: str) -> None:
    with rda.Client("rdk_" + "A" * 43, base_url=base_url) as stranger:
        try:
            stranger.get_account()
        except rda.AuthenticationError as error:
            assert error.status == 401
        else:
            raise AssertionError("an unknown key must be refused")
