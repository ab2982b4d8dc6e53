"""An export started, waited for with progress, downloaded, and equal in pandas to paging the API."""

from __future__ import annotations

import rda
from conftest import balance


def test_an_export_in_pandas_equals_paging_the_api(client, subreddit, window) -> None:
    after, before = window
    paged = client.posts.iter(subreddit=subreddit, after=after, before=before, limit=100, sort="asc")
    expected = paged.to_pandas()
    start = balance(client)
    export = client.exports.start(kind="posts", subreddit=subreddit, after=after, before=before)
    assert export.state == "queued"
    seen: list[tuple[str, float]] = []
    job = export.wait(lambda job: seen.append((job["state"], job["progress"]["percent"])), interval=0.3)
    assert job["state"] == "done", job["reason"]
    assert seen[-1] == ("done", 100)
    assert [percent for _, percent in seen] == sorted(percent for _, percent in seen)
    download = export.download()
    assert download.sha256 == job["result"]["manifest"]["sha256"]
    frame = download.to_pandas()
    assert len(frame) == len(expected) == job["result"]["manifest"]["rows"]
    assert list(frame["id"]) == list(expected["id"])
    for column in ("created_utc", "score", "num_comments", "title"):
        assert frame[column].dtype == expected[column].dtype, column
        assert frame[column].equals(expected[column]), column
    assert balance(client) == start - job["progress"]["credits_spent"]


def test_every_export_route(client, subreddit, window) -> None:
    after, before = window
    quoted = client.create_export(kind="comments", subreddit=subreddit, after=after, before=before)
    assert quoted.status == 201 and quoted.credits_used == 0
    export_id = quoted.data["id"]
    assert client.get_export(export_id).data["state"] == "quoted"
    assert client.start_export(export_id).data["state"] in ("queued", "running")
    # Each control either takes effect or is refused (409) because the job has moved past it.
    for control, states in (
        (client.pause_export, {"paused"}),
        (client.resume_export, {"queued", "running"}),
        (client.cancel_export, {"cancelled"}),
    ):
        try:
            assert control(export_id).data["state"] in states
        except rda.ConflictError as refused:
            assert refused.request_id and client.get_export(export_id).data["state"] == "done"
    state = client.get_export(export_id).data["state"]
    assert state in ("cancelled", "done")
    if state == "cancelled":
        # A cancelled export keeps the rows of the pages it was charged for: once its file is
        # written it has a partial one (manifest `complete: false`); with no page paid, none.
        job = client.get_export(export_id).data
        try:
            partial = client.download_export(export_id)
        except rda.ApiError as error:
            assert error.status in (404, 409) and error.request_id
            assert not job.get("result") or job["progress"]["credits_spent"] == 0
        else:
            assert partial.content and partial.sha256
            assert client.get_export(export_id).data["result"]["manifest"]["complete"] is False
