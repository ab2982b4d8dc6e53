"""The README's walkthrough runs as written (its month of comments and its export), against the stack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


def section(title: str) -> str:
    text = README.read_text()
    body = text.split(f"### {title}", 1)[1].split("\n### ", 1)[0]
    return "\n".join(re.findall(r"```python\n(.*?)```", body, re.S))


def test_a_month_of_comments_and_the_same_month_as_an_export(client, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    scope: dict = {"client": client}
    exec(section("2. A month of a community's comments in a DataFrame"), scope)
    frame = scope["frame"]
    assert len(frame) > 100 and str(frame["created_utc"].dtype) == "datetime64[ns, UTC]"
    assert f"{len(frame)} comments for {scope['comments'].credits_used} credits" in capsys.readouterr().out
    exec(section("3. The same month as an export"), scope)
    assert scope["job"]["state"] == "done"
    exported = scope["frame"]
    assert (tmp_path / "october.jsonl").stat().st_size > 0
    assert sorted(exported["id"]) == sorted(frame["id"])


def test_an_unknown_parameter_is_refused_before_any_request(client) -> None:
    with pytest.raises(TypeError, match="subredit"):
        client.posts.page(subredit="python")
