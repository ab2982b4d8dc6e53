"""Rows into pandas DataFrames with the types the API documents (docs/api.md#objects).

Times the API gives in epoch seconds become UTC timestamps; integer fields stay integers (pandas'
nullable `Int64` where a row lacks one, never floats); booleans stay booleans. pandas is the
`pandas` extra: `pip install "rda-client[pandas]"`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    import pandas  # type: ignore[import]  # pandas 1.5 ships no types

#: Fields that hold epoch seconds: item creation (and its copy `created`), the archive's fetch
#: time, buckets' and monitors' times.
EPOCH_SECOND_FIELDS = frozenset(
    {"created_utc", "created", "retrieved_on", "start", "created_at", "backfill_from"}
)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as missing:  # pragma: no cover - depends on the environment
        raise ImportError('to_pandas() needs pandas: pip install "rda-client[pandas]"') from missing
    return pandas


def to_frame(rows: Iterable[Mapping[str, Any]]) -> pandas.DataFrame:
    """A DataFrame of API objects, one row each, with typed columns (from the JSON values themselves,
    before pandas could turn an integer column with a gap into floats)."""
    pandas = _pandas()
    records = list(rows)
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    columns = {name: _column(pandas, name, [r.get(name) for r in records]) for name in names}
    return pandas.DataFrame(columns, index=pandas.RangeIndex(len(records)))


def _column(pandas: Any, name: str, values: list[Any]) -> pandas.Series:
    present = [value for value in values if value is not None]
    if present and all(isinstance(value, bool) for value in present):
        return pandas.Series(values, dtype="boolean")
    if present and all(isinstance(value, int) and not isinstance(value, bool) for value in present):
        integers = pandas.Series(values, dtype="Int64")
        return pandas.to_datetime(integers, unit="s", utc=True) if name in EPOCH_SECOND_FIELDS else integers
    return pandas.Series(values, dtype=None if present else "object")


def read_export(content: bytes) -> pandas.DataFrame:
    """An export's file (JSONL or CSV, gzipped or not) as a typed DataFrame."""
    if content[:2] == b"\x1f\x8b":
        content = gzip.decompress(content)
    text = content.decode("utf-8")
    first = text.lstrip()[:1]
    rows = _jsonl_rows(text) if first in ("{", "") else _csv_rows(text)
    return to_frame(rows)


def _jsonl_rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _csv_rows(text: str) -> list[dict[str, Any]]:
    """CSV cells are text: integers are read back as integers, the rest as written."""
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    return [{key: _cell(value) for key, value in row.items()} for row in rows]


def _cell(value: str | None) -> Any:
    if value is None or value == "":
        return None
    if value.lstrip("-").isdigit():
        return int(value)
    return value
