"""Monitors: created, read, changed, pulled and deleted through the client; their webhooks verified
with the secret shown once, and a tampered one refused."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import rda


class Receiver:
    """A webhook receiver on this machine, keeping every request's headers and exact bytes."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                receiver.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def wait_for(self, count: int, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while len(self.received) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.received)} webhooks arrived in {seconds} s, not {count}")
            time.sleep(0.1)


@pytest.fixture()
def receiver():
    started = Receiver()
    yield started
    started.server.shutdown()


def test_a_webhook_verifies_with_the_secret_shown_once_and_a_tampered_one_is_refused(client, receiver, subreddit):
    created = client.create_monitor(kind="post", subreddit=subreddit, interval_seconds=60, webhook_url=receiver.url)
    assert created.status == 201 and created.credits_used == 0
    secret = created.data["webhook_secret"]
    monitor_id = created.data["monitor"]["id"]
    try:
        assert secret not in json.dumps(client.get_monitor(monitor_id).data)
        test = client.test_monitor_webhook(monitor_id)
        assert test.credits_used == 0
        receiver.wait_for(1)
        headers, body = receiver.received[0]
        event = rda.verify_webhook(body, headers, secret)
        assert event["type"] == "monitor.test" and event["data"]["monitor_id"] == monitor_id
        assert event["data"]["delivery_id"] == headers["webhook-id"]
        for tampered in (body.replace(b"monitor.test", b"monitor.items"), body + b" "):
            with pytest.raises(rda.WebhookVerificationError):
                rda.verify_webhook(tampered, headers, secret)
        with pytest.raises(rda.WebhookVerificationError):
            rda.verify_webhook(body, headers, "whsec_" + "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=")
        with pytest.raises(rda.WebhookVerificationError):
            rda.verify_webhook(body, headers, secret, now=int(headers["webhook-timestamp"]) + 3_600)
        deliveries = client.list_monitor_deliveries(monitor_id).data["deliveries"]
        assert deliveries[0]["id"] == headers["webhook-id"] and deliveries[0]["state"] == "delivered"

        rotated = client.rotate_monitor_webhook_secret(monitor_id).data
        assert rotated["webhook_secret"].startswith("whsec_") and rotated["webhook_secret"] != secret
        client.test_monitor_webhook(monitor_id)
        receiver.wait_for(2)
        headers, body = receiver.received[1]
        for either in (secret, rotated["webhook_secret"]):
            assert rda.verify_webhook(body, headers, either)["type"] == "monitor.test"
        try:
            client.redeliver_monitor_batch(monitor_id, deliveries[0]["id"])
        except rda.ConflictError as refused:  # a test event is not redelivered (docs/api.md#monitor-webhooks)
            assert refused.status == 409 and refused.request_id
    finally:
        client.delete_monitor(monitor_id)


def test_a_monitor_backfills_and_its_items_are_pulled_page_by_page(client, subreddit, window):
    after, before = window
    created = client.create_monitor(kind="post", subreddit=subreddit, backfill_from="30d", interval_seconds=60)
    monitor = created.data["monitor"]
    assert created.data["backfill_estimate"]["upstream_pages"] >= 1
    listed = client.list_monitors().data
    assert monitor["id"] in [m["id"] for m in listed["monitors"]]
    changed = client.update_monitor(monitor["id"], phrase=None, interval_seconds=120)
    assert changed.data["monitor"]["interval_seconds"] == 120 and changed.data["monitor"]["phrase"] is None
    deadline = time.monotonic() + 60
    while client.get_monitor(monitor["id"]).data["monitor"]["status"] == "backfilling":
        assert time.monotonic() < deadline, "the backfill did not finish in 60 s"
        time.sleep(0.3)
    items = client.monitors.items(monitor["id"], limit=50)
    pulled = list(items)
    assert len(pulled) == client.get_monitor(monitor["id"]).data["monitor"]["items_collected"]
    assert items.credits_used == -(-len(pulled) // 50)
    assert items.cursor is not None
    times = [item["created_utc"] for item in pulled]
    assert times == sorted(times), "the backfill is delivered oldest first"
    assert list(client.monitors.items(monitor["id"], cursor=items.cursor)) == []
    assert client.delete_monitor(monitor["id"]).credits_used == 0
    with pytest.raises(rda.NotFoundError):
        client.get_monitor(monitor["id"])
