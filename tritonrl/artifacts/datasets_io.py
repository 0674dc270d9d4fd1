"""Publish and read stage datasets: parquet plus a manifest, named by content digest.

Every data stage hands the next one a URI. A dataset lives at
`<root>/<name>-<digest12>/` with `data.parquet` and `manifest.json`; the
manifest is written last and is what makes a dataset exist, so a reader
never sees a half-written one (`read_dataset` refuses a directory without
it). The parquet is written with pyarrow (no `datasets` needed to publish)
and loads with `datasets.load_dataset("parquet")`. The digest covers the
records' content, so the same data always gets the same URI and
republishing it is a no-op. Nested values (dicts, lists)
are stored as JSON strings: rows of different problems have different shape
keys, which a parquet struct column cannot hold.

Test: tests/artifacts/test_datasets_io.py.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import tritonrl
from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactNotFound, ArtifactStore, join

DATA_FILE = "data.parquet"


class DatasetError(ValueError):
    """A dataset URI does not hold a complete dataset."""


@dataclass(frozen=True)
class PublishedDataset:
    uri: str
    digest: str
    rows: int


@functools.cache
def code_version() -> str:
    """Package version plus the git commit when running from a checkout (asked once per process; an
    installed package is never attributed the commit of a repository it happens to sit in)."""
    root = Path(tritonrl.__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return tritonrl.__version__
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{tritonrl.__version__}+{commit}" if commit else tritonrl.__version__


def _flat(record: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    out, json_columns = {}, set()
    for key, value in record.items():
        if isinstance(value, (dict, list, tuple)):
            out[key] = json.dumps(value, sort_keys=True)
            json_columns.add(key)
        else:
            out[key] = value
    return out, json_columns


def records_digest(records: list[dict[str, Any]]) -> str:
    canonical = "\n".join(json.dumps(r, sort_keys=True, default=str) for r in records)
    return hashlib.sha256(canonical.encode()).hexdigest()


def publish_dataset(
    store: ArtifactStore, root_uri: str, name: str, records: list[dict[str, Any]], manifest: dict[str, Any]
) -> PublishedDataset:
    """Write records as `<root>/<name>-<digest12>/`; returns its URI. Manifest last: complete or absent."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    digest = records_digest(records)
    uri = join(root_uri, f"{name}-{digest[:12]}")
    if store.exists(join(uri, MANIFEST_FILE)):
        return PublishedDataset(uri, digest, len(records))
    flat, json_columns = [], set()
    for record in records:
        row, columns = _flat(record)
        flat.append(row)
        json_columns |= columns
    with tempfile.TemporaryDirectory(prefix="tritonrl-dataset-") as tmp:
        path = Path(tmp) / DATA_FILE
        pq.write_table(pa.Table.from_pylist(flat), path)
        data = path.read_bytes()
    store.write_bytes(join(uri, DATA_FILE), data)
    full_manifest = {
        "name": name,
        "digest": f"sha256-{digest}",
        "rows": len(records),
        "json_columns": sorted(json_columns),
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "code_version": code_version(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **manifest,
    }
    store.write_text(join(uri, MANIFEST_FILE), json.dumps(full_manifest, indent=2, default=str))
    return PublishedDataset(uri, digest, len(records))


ANY_DATASET = "the URI of a dataset a stage printed (…/<stage>-<digest>)"


def read_manifest(store: ArtifactStore, uri: str, kind: str = ANY_DATASET) -> dict[str, Any]:
    """A published dataset's manifest; a URI without one is an error saying which `kind` of dataset to pass."""
    try:
        return json.loads(store.read_text(join(uri, MANIFEST_FILE)))
    except ArtifactNotFound as exc:  # not "could not ask": a dead endpoint stays a StorageError
        raise DatasetError(f"{uri} is not a complete dataset (no {MANIFEST_FILE}); pass {kind}") from exc


def read_rows(store: ArtifactStore, uri: str, columns: set[str], kind: str, when_empty: str) -> list[dict[str, Any]]:
    """Records of a dataset a stage needs rows of, with `columns`; errors say `when_empty`, or which `kind` to pass."""
    rows = read_dataset(store, uri, kind)
    if not rows:
        raise DatasetError(f"{uri} {when_empty}")
    missing = columns - set(rows[0])
    if missing:
        raise DatasetError(f"{uri} lacks column(s) {sorted(missing)}; pass {kind}")
    return rows


def read_dataset(store: ArtifactStore, uri: str, kind: str = ANY_DATASET) -> list[dict[str, Any]]:
    """Records of a published dataset, nested values decoded; checks the data file against the manifest."""
    import pyarrow.parquet as pq

    manifest = read_manifest(store, uri, kind)
    data = store.read_bytes(join(uri, DATA_FILE))
    if hashlib.sha256(data).hexdigest() != manifest["data_sha256"]:
        raise DatasetError(f"{uri}: {DATA_FILE} does not match its manifest (modified or truncated)")
    with tempfile.NamedTemporaryFile(suffix=".parquet") as handle:
        handle.write(data)
        handle.flush()
        rows = pq.read_table(handle.name).to_pylist() if manifest["rows"] else []
    json_columns = set(manifest.get("json_columns", []))
    return [{k: (json.loads(v) if k in json_columns and v is not None else v) for k, v in row.items()} for row in rows]
