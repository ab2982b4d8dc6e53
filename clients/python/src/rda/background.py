"""Work the API does in the background: export jobs (docs/api.md#exports) and monitors
(docs/api.md#monitors). Managing both is free; an export's pages and a monitor's pulled pages cost
1 credit each.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ._generated.models import ExportJob
from .results import Download

if TYPE_CHECKING:
    import pandas  # type: ignore[import]  # pandas 1.5 ships no types

    from .client import AsyncClient, Client

#: States after which an export no longer changes by itself (`quoted` waits for a start).
ENDED_STATES = frozenset({"done", "failed", "cancelled", "quoted"})

Progress = Callable[[ExportJob], None]


def _progress_reporter(progress: Progress | str | None) -> tuple[Progress | None, Callable[[], None]]:
    """The callback to report with, and what closes it: `"auto"` draws a tqdm bar when tqdm is installed."""
    if progress != "auto":
        return progress if callable(progress) else None, lambda: None
    try:
        from tqdm import tqdm  # type: ignore[import]
    except ImportError:
        return None, lambda: None
    bar = tqdm(total=100.0, unit="%", desc="export")

    def report(job: ExportJob) -> None:
        bar.update(job["progress"]["percent"] - bar.n)
        bar.set_postfix(state=job["state"], rows=job["progress"]["rows_done"],
                        credits=job["progress"]["credits_spent"])

    return report, bar.close


def _changed(job: ExportJob, seen: tuple[Any, ...] | None) -> tuple[tuple[Any, ...], bool]:
    mark = (job["state"], job["progress"]["pages_done"], job["progress"]["percent"])
    return mark, mark != seen


class Export:
    """An export job: `wait()` for it, then `download()` its file or `to_pandas()` its rows."""

    def __init__(self, client: Client, job: ExportJob) -> None:
        self._client = client
        self.job = job

    @property
    def id(self) -> str:
        return self.job["id"]

    @property
    def state(self) -> str:
        return self.job["state"]

    def refresh(self) -> ExportJob:
        self.job = self._client.get_export(self.id).data
        return self.job

    def wait(self, progress: Progress | str | None = "auto", *, interval: float = 2.0,
             timeout: float | None = None) -> ExportJob:
        """Polls until the export is done, failed or cancelled; `progress(job)` on every change."""
        report, close = _progress_reporter(progress)
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = None
        try:
            while True:
                job = self.refresh()
                seen, changed = _changed(job, seen)
                if changed and report is not None:
                    report(job)
                if job["state"] in ENDED_STATES:
                    return job
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"export {self.id} is still {job['state']} after {timeout} s")
                time.sleep(interval)
        finally:
            close()

    def download(self, path: str | Path | None = None) -> Download:
        """The finished file (checked against its sha256), also written to `path` when given."""
        download = self._client.download_export(self.id)
        if path is not None:
            Path(path).write_bytes(download.content)
        return download

    def to_pandas(self) -> pandas.DataFrame:
        return self.download().to_pandas()


class Exports:
    """`client.exports.start(kind="comments", subreddit=..., after=..., before=...)` → an `Export`."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def start(self, **fields: Any) -> Export:
        """Quotes and starts an export at once (`confirm: true`); the fields of `create_export`."""
        body: dict[str, Any] = {"confirm": True, **fields}
        return Export(self._client, self._client.create_export(**body).data)

    def quote(self, **fields: Any) -> Export:
        """A quote only; `start_export(export.id)` starts it."""
        body: dict[str, Any] = {**fields, "confirm": False}
        return Export(self._client, self._client.create_export(**body).data)

    def get(self, id: str) -> Export:
        return Export(self._client, self._client.get_export(id).data)


class AsyncExport:
    """`Export` for the AsyncClient."""

    def __init__(self, client: AsyncClient, job: ExportJob) -> None:
        self._client = client
        self.job = job

    @property
    def id(self) -> str:
        return self.job["id"]

    async def wait(self, progress: Progress | str | None = "auto", *, interval: float = 2.0) -> ExportJob:
        report, close = _progress_reporter(progress)
        seen = None
        try:
            while True:
                self.job = (await self._client.get_export(self.id)).data
                seen, changed = _changed(self.job, seen)
                if changed and report is not None:
                    report(self.job)
                if self.job["state"] in ENDED_STATES:
                    return self.job
                await asyncio.sleep(interval)
        finally:
            close()

    async def download(self) -> Download:
        return await self._client.download_export(self.id)


class AsyncExports:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def start(self, **fields: Any) -> AsyncExport:
        body: dict[str, Any] = {"confirm": True, **fields}
        created = await self._client.create_export(**body)
        return AsyncExport(self._client, created.data)


class MonitorItems:
    """A monitor's matched items, pulled page by page until a page comes back empty.

    After the loop, `cursor` is where the next pull starts: keep it to resume later. A page holding
    an item costs 1 credit; the empty page that ends the loop costs nothing.
    """

    def __init__(self, client: Client, monitor_id: str, cursor: str | None, limit: int | None) -> None:
        self._client, self.monitor_id, self.cursor, self._limit = client, monitor_id, cursor, limit
        self.credits_used = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while True:
            page = self._client.pull_monitor_items(self.monitor_id, cursor=self.cursor, limit=self._limit)
            self.credits_used += page.credits_used or 0
            self.cursor = page.data["cursor"]
            if not page.data["items"]:
                return
            yield from page.data["items"]

    def to_pandas(self) -> pandas.DataFrame:
        from .frames import to_frame

        return to_frame(list(self))


class Monitors:
    """`client.monitors.items(monitor_id)`: pull what a monitor matched; the rest are the generated methods."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def items(self, monitor_id: str, *, cursor: str | None = None, limit: int | None = None) -> MonitorItems:
        return MonitorItems(self._client, monitor_id, cursor, limit)
