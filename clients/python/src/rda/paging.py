"""Walking a listing page by page, exactly as docs/api.md#pagination says.

The next page repeats the request with the previous page's cursor: as `before` when sorting newest
first (the default), as `after` when sorting oldest first; for user search the cursor is the next
page's rank, sent as `offset`. Only `has_more: false` ends a listing: a page may be shorter than
`limit`, or empty (with `q`), while more follow. Each page is its own call (its own
`Idempotency-Key`) and costs 1 credit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Awaitable, Generic, Iterator, TypeVar

from ._generated.operations import Operation
from .results import Page

if TYPE_CHECKING:
    import pandas  # type: ignore[import]  # pandas 1.5 ships no types

T = TypeVar("T")


def next_params(operation: Operation, params: dict[str, Any], page: Page[Any]) -> dict[str, Any] | None:
    """The parameters of the page after `page`, or None when the listing ends there."""
    if not page.has_more or page.cursor is None:
        return None
    if operation.paging == "offset":
        return {**params, "offset": page.cursor}
    bound = "after" if params.get("sort") == "asc" else "before"
    return {**params, bound: page.cursor}


class Pages(Generic[T]):
    """The pages of one listing, fetched as they are iterated; `.items()` and `.to_pandas()` flatten them."""

    def __init__(
        self, fetch: Callable[[dict[str, Any]], Page[T]], operation: Operation, params: dict[str, Any],
        max_pages: int | None = None,
    ) -> None:
        self._fetch, self._operation, self._params, self._max_pages = fetch, operation, params, max_pages
        #: Credits the pages fetched so far cost, and the balance after the last one.
        self.credits_used = 0
        self.credits_remaining: int | None = None

    def __iter__(self) -> Iterator[Page[T]]:
        params: dict[str, Any] | None = dict(self._params)
        fetched = 0
        while params is not None and (self._max_pages is None or fetched < self._max_pages):
            page = self._fetch(params)
            fetched += 1
            self.credits_used += page.credits_used or 0
            self.credits_remaining = page.credits_remaining
            yield page
            params = next_params(self._operation, params, page)

    def items(self) -> Iterator[T]:
        for page in self:
            yield from page.data

    def to_pandas(self) -> pandas.DataFrame:
        """Every row of every page in one typed DataFrame (see `rda.frames`)."""
        from .frames import to_frame

        return to_frame(self.items())  # type: ignore[arg-type]


class Items(Generic[T]):
    """The rows of a listing, one at a time across its pages (`for post in client.posts.iter(...)`)."""

    def __init__(self, pages: Pages[T]) -> None:
        self.pages = pages

    def __iter__(self) -> Iterator[T]:
        return self.pages.items()

    @property
    def credits_used(self) -> int:
        return self.pages.credits_used

    @property
    def credits_remaining(self) -> int | None:
        return self.pages.credits_remaining

    def to_pandas(self) -> pandas.DataFrame:
        return self.pages.to_pandas()


class AsyncPages(Generic[T]):
    """`Pages` for the AsyncClient: `async for page in ...`, `await .to_pandas()`."""

    def __init__(
        self, fetch: Callable[[dict[str, Any]], Awaitable[Page[T]]], operation: Operation,
        params: dict[str, Any], max_pages: int | None = None,
    ) -> None:
        self._fetch, self._operation, self._params, self._max_pages = fetch, operation, params, max_pages
        self.credits_used = 0
        self.credits_remaining: int | None = None

    async def __aiter__(self) -> AsyncIterator[Page[T]]:
        params: dict[str, Any] | None = dict(self._params)
        fetched = 0
        while params is not None and (self._max_pages is None or fetched < self._max_pages):
            page = await self._fetch(params)
            fetched += 1
            self.credits_used += page.credits_used or 0
            self.credits_remaining = page.credits_remaining
            yield page
            params = next_params(self._operation, params, page)

    async def items(self) -> AsyncIterator[T]:
        async for page in self:
            for row in page.data:
                yield row

    async def to_pandas(self) -> pandas.DataFrame:
        from .frames import to_frame

        return to_frame([row async for row in self.items()])  # type: ignore[misc]
