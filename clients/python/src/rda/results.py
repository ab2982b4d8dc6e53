"""What a call returns: its data, with the credits it used and the balance left (docs/api.md#response-envelope)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Iterator, TypeVar, cast

import httpx

if TYPE_CHECKING:
    import pandas  # type: ignore[import]  # pandas 1.5 ships no types

T = TypeVar("T")


def _header_int(response: httpx.Response, name: str) -> int | None:
    value = response.headers.get(name)
    return int(value) if value is not None and value.isdigit() else None


@dataclass
class Result(Generic[T]):
    """One answer: `data`, and what it cost. `credits_used` is 0 or 1; `credits_remaining` the balance after it."""

    data: T
    credits_used: int | None
    credits_remaining: int | None
    request_id: str | None
    status: int
    #: Epoch seconds when the archive produced the data (data answers only).
    cached_at: int | None = None
    #: True when the API replayed a stored answer for the call's `Idempotency-Key`.
    replayed: bool = False

    @classmethod
    def from_response(cls, response: httpx.Response) -> Result[Any]:
        body = response.json()
        return cls(data=body.get("data"), **_meta(response, body))


def _meta(response: httpx.Response, body: dict[str, Any]) -> dict[str, Any]:
    service = body.get("_service") or {}
    used = service.get("credits_used", _header_int(response, "x-credits-used"))
    remaining = service.get("credits_remaining", _header_int(response, "x-credits-remaining"))
    return {
        "credits_used": used,
        "credits_remaining": remaining,
        "request_id": response.headers.get("x-request-id"),
        "status": response.status_code,
        "cached_at": service.get("cached_at"),
        "replayed": response.headers.get("idempotent-replayed") == "true",
    }


@dataclass
class Page(Result[list[T]]):
    """A list answer: its rows in `data`, and where the listing goes on (docs/api.md#pagination).

    `cursor` is the `created_utc` of the last row (or, for user search, the next page's rank);
    `has_more` false ends the listing. A page may be short, even empty, while `has_more` is true.
    """

    cursor: int | None = None
    has_more: bool = False

    @classmethod
    def from_response(cls, response: httpx.Response) -> Page[Any]:
        body = response.json()
        service = body.get("_service") or {}
        return cls(
            data=body.get("data") or [],
            cursor=service.get("cursor"),
            has_more=bool(service.get("has_more")),
            **_meta(response, body),
        )

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def to_pandas(self) -> pandas.DataFrame:
        """The page's rows as a DataFrame with typed columns (see `rda.frames`)."""
        from .frames import to_frame

        return to_frame(cast("list[dict[str, Any]]", self.data))


@dataclass
class Download:
    """An export's file: its bytes, checked against the `x-export-sha256` the API sent."""

    content: bytes
    sha256: str | None
    content_type: str | None
    filename: str | None
    request_id: str | None
    credits_used: int | None = None
    credits_remaining: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_response(cls, response: httpx.Response) -> Download:
        disposition = response.headers.get("content-disposition", "")
        filename = disposition.split("filename=")[-1].strip('"') if "filename=" in disposition else None
        download = cls(
            content=response.content,
            sha256=response.headers.get("x-export-sha256"),
            content_type=response.headers.get("content-type"),
            filename=filename,
            request_id=response.headers.get("x-request-id"),
            credits_used=_header_int(response, "x-credits-used"),
            credits_remaining=_header_int(response, "x-credits-remaining"),
        )
        download.check()
        return download

    def check(self) -> None:
        """Raises ValueError when the bytes are not the ones the manifest describes."""
        if self.sha256 is not None and hashlib.sha256(self.content).hexdigest() != self.sha256:
            raise ValueError(f"the downloaded file does not match its sha256 {self.sha256}")

    def to_pandas(self) -> pandas.DataFrame:
        """The file's rows as a DataFrame with typed columns: JSONL or CSV, gzipped or not."""
        from .frames import read_export

        return read_export(self.content)


def interpret(answer: str, response: httpx.Response) -> Any:
    """The operation's kind of answer (operations.py's `answer`) made from the HTTP response."""
    if answer == "page":
        return Page.from_response(response)
    if answer == "file":
        return Download.from_response(response)
    return Result.from_response(response)
