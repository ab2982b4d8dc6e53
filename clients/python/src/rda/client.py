"""`Client` and `AsyncClient`: a method per API operation (generated), listings that page themselves,
export jobs to wait for and download, monitors to pull.

    from rda import Client
    client = Client("rdk_…", base_url="http://127.0.0.1:8080")
    for post in client.posts.iter(subreddit="python", after="2026-10-01", before="2026-11-01"):
        print(post["title"])
"""

from __future__ import annotations

import os
from typing import Any, cast

import httpx

from . import __version__
from ._generated.models import Comment, Post, UserProfile
from ._generated.operations import DEFAULT_TIMEOUT_S, OPERATIONS, AsyncOperations, SyncOperations
from ._http import Request, RetryPolicy, build_request, send, send_async
from .background import AsyncExports, Exports, Monitors
from .paging import AsyncPages, Items, Pages
from .results import Page, interpret

DEFAULT_BASE_URL = "http://127.0.0.1:8080"


def _settings(api_key: str | None, base_url: str | None) -> tuple[dict[str, str], str]:
    key = api_key or os.environ.get("RDA_API_KEY")
    if not key:
        raise ValueError("an API key is needed: Client(api_key=...) or the RDA_API_KEY variable")
    headers = {"x-api-key": key, "user-agent": f"rda-python/{__version__}"}
    return headers, (base_url or os.environ.get("RDA_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")


def _operation_id(name: str) -> str:
    """An operation by its operationId (`listPosts`) or its method's name (`list_posts`)."""
    if name in OPERATIONS:
        return name
    for operation_id in OPERATIONS:
        if "".join(part.capitalize() for part in name.split("_")).lower() == operation_id.lower():
            return operation_id
    raise KeyError(f"no operation named {name!r}")


class Listing:
    """One paged operation: `.page(...)` one page, `.pages(...)` every page, `.iter(...)` every row."""

    def __init__(self, client: Client, operation_id: str) -> None:
        self._client, self._operation = client, OPERATIONS[operation_id]

    def page(self, **params: Any) -> Page[Any]:
        return cast("Page[Any]", self._client._call(self._operation.id, params, None))

    def pages(self, *, max_pages: int | None = None, **params: Any) -> Pages[Any]:
        return Pages(self.page_with, self._operation, params, max_pages)

    def iter(self, *, max_pages: int | None = None, **params: Any) -> Items[Any]:
        return Items(self.pages(max_pages=max_pages, **params))

    def page_with(self, params: dict[str, Any]) -> Page[Any]:
        return self.page(**params)


class Client(SyncOperations):
    """The API over HTTP, one call at a time. Use it as a context manager, or call `close()`.

    Each call retries 429, 502 and 503 (honouring `Retry-After`) under one `Idempotency-Key`, so a
    retry is never charged twice; `timeout` outlasts the gateway's own deadline.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._auth, self.base_url = _settings(api_key, base_url)
        self._retry = retry or RetryPolicy()
        self._http = http_client or httpx.Client(base_url=self.base_url, timeout=timeout)
        if http_client is not None:
            self._http.base_url = httpx.URL(self.base_url)
        self.exports = Exports(self)
        self.monitors = Monitors(self)

    def _request(self, operation_id: str, values: dict[str, Any], idempotency_key: str | None) -> Request:
        request = build_request(OPERATIONS[operation_id], values, idempotency_key)
        request.headers.update(self._auth)
        return request

    def _call(self, operation: str, values: dict[str, Any], idempotency_key: str | None) -> Any:
        request = self._request(operation, values, idempotency_key)
        return interpret(OPERATIONS[operation].answer, send(self._http, request, self._retry))

    @property
    def posts(self) -> Listing:
        """Posts of a community or an author, paged by `created_utc`: `.iter(subreddit=..., after=..., before=...)`."""
        return Listing(self, "listPosts")

    @property
    def comments(self) -> Listing:
        return Listing(self, "listComments")

    @property
    def users(self) -> Listing:
        """User search, paged by rank."""
        return Listing(self, "searchUsers")

    def listing(self, operation: str) -> Listing:
        """Any paged operation, by operationId or method name."""
        return Listing(self, _operation_id(operation))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncListing:
    """`Listing` for the AsyncClient."""

    def __init__(self, client: AsyncClient, operation_id: str) -> None:
        self._client, self._operation = client, OPERATIONS[operation_id]

    async def page(self, **params: Any) -> Page[Any]:
        return cast("Page[Any]", await self._client._call(self._operation.id, params, None))

    def pages(self, *, max_pages: int | None = None, **params: Any) -> AsyncPages[Any]:
        return AsyncPages(self.page_with, self._operation, params, max_pages)

    def iter(self, *, max_pages: int | None = None, **params: Any) -> Any:
        return self.pages(max_pages=max_pages, **params).items()

    async def page_with(self, params: dict[str, Any]) -> Page[Any]:
        return await self.page(**params)


class AsyncClient(AsyncOperations):
    """`Client` for asyncio: the same methods, awaited; `async with AsyncClient(...) as client:`."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._auth, self.base_url = _settings(api_key, base_url)
        self._retry = retry or RetryPolicy()
        self._http = http_client or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)
        if http_client is not None:
            self._http.base_url = httpx.URL(self.base_url)
        self.exports = AsyncExports(self)

    async def _call(self, operation: str, values: dict[str, Any], idempotency_key: str | None) -> Any:
        request = build_request(OPERATIONS[operation], values, idempotency_key)
        request.headers.update(self._auth)
        return interpret(OPERATIONS[operation].answer, await send_async(self._http, request, self._retry))

    @property
    def posts(self) -> AsyncListing:
        return AsyncListing(self, "listPosts")

    @property
    def comments(self) -> AsyncListing:
        return AsyncListing(self, "listComments")

    @property
    def users(self) -> AsyncListing:
        return AsyncListing(self, "searchUsers")

    def listing(self, operation: str) -> AsyncListing:
        return AsyncListing(self, _operation_id(operation))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["AsyncClient", "Client", "Comment", "Listing", "Post", "UserProfile"]
