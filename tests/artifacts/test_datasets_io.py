import pytest

from tritonrl.artifacts.datasets_io import DatasetError, publish_dataset, read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore, join

RECORDS = [
    {"problem": "a.py", "level": 1, "shapes": {"n": 4}, "prompt": [{"role": "user", "content": "x"}], "response": "r"},
    {"problem": "b.py", "level": None, "shapes": {"m": 8, "k": 2}, "prompt": [], "response": None},
]


def test_round_trip_with_nested_values_and_manifest(tmp_path):
    store = ArtifactStore()
    published = publish_dataset(store, tmp_path.as_uri(), "distill", RECORDS, {"counts": {"samples": 2}})
    assert published.uri.startswith(join(tmp_path.as_uri(), "distill-"))
    assert read_dataset(store, published.uri) == RECORDS
    manifest = read_manifest(store, published.uri)
    assert manifest["rows"] == 2 and manifest["counts"] == {"samples": 2}
    assert manifest["digest"] == f"sha256-{published.digest}" and manifest["code_version"]


def test_same_content_same_uri_and_different_content_new_uri(tmp_path):
    store = ArtifactStore()
    first = publish_dataset(store, str(tmp_path), "x", RECORDS, {})
    again = publish_dataset(store, str(tmp_path), "x", RECORDS, {"other": 1})
    changed = publish_dataset(store, str(tmp_path), "x", RECORDS[:1], {})
    assert first.uri == again.uri and changed.uri != first.uri


def test_incomplete_or_tampered_dataset_is_refused(tmp_path):
    store = ArtifactStore()
    published = publish_dataset(store, str(tmp_path), "x", RECORDS, {})
    (tmp_path / published.uri.rsplit("/", 1)[1] / "data.parquet").write_bytes(b"garbage")
    with pytest.raises(DatasetError, match="does not match its manifest"):
        read_dataset(store, published.uri)
    half = tmp_path / "half-abc"
    half.mkdir()
    (half / "data.parquet").write_bytes(b"partial")
    with pytest.raises(DatasetError, match="not a complete dataset"):
        read_dataset(store, str(half))


def test_empty_dataset(tmp_path):
    store = ArtifactStore()
    assert read_dataset(store, publish_dataset(store, str(tmp_path), "empty", [], {}).uri) == []
