"""ArtifactStore on local paths, file:// URIs and S3 (S3: the s3_endpoint and bucket fixtures in conftest.py).

S3 failures (dead endpoint, no credentials, retries): test_storage_errors.py.
"""

import os

import pytest

from tritonrl.artifacts.store import ArtifactStore, StorageError, join


def _round_trip(store: ArtifactStore, root: str) -> None:
    store.write_text(join(root, "a", "one.json"), '{"x": 1}')
    store.write_bytes(join(root, "a", "b", "two.bin"), b"\x00\x01")
    store.write_text(join(root, "three.txt"), "three")
    assert store.read_text(join(root, "a", "one.json")) == '{"x": 1}'
    assert store.read_bytes(join(root, "a", "b", "two.bin")) == b"\x00\x01"
    assert store.exists(join(root, "three.txt"))
    assert not store.exists(join(root, "missing.txt"))
    assert store.list(join(root, "a")) == [join(root, "a", "b", "two.bin"), join(root, "a", "one.json")]
    store.write_text(join(root, "three.txt"), "overwritten")
    assert store.read_text(join(root, "three.txt")) == "overwritten"


@pytest.mark.integration
def test_s3_round_trip_through_configured_endpoint(s3_endpoint, bucket):
    _round_trip(ArtifactStore(s3_endpoint), f"s3://{bucket}/runs/r1")


def test_file_uri_and_plain_path_round_trip(tmp_path):
    store = ArtifactStore()
    _round_trip(store, (tmp_path / "uri").as_uri())
    _round_trip(store, str(tmp_path / "plain"))


@pytest.mark.integration
def test_missing_objects_give_clear_errors(tmp_path, s3_endpoint, bucket):
    store = ArtifactStore(s3_endpoint)
    with pytest.raises(StorageError, match="no such file"):
        store.read_bytes((tmp_path / "nothing").as_uri())
    with pytest.raises(StorageError, match="no such object"):
        store.read_bytes(f"s3://{bucket}/nothing")
    with pytest.raises(StorageError, match="create the bucket first"):
        store.write_text("s3://no-such-bucket-here/x", "x")
    with pytest.raises(StorageError, match="unsupported scheme"):
        store.read_bytes("gs://bucket/x")
    with pytest.raises(StorageError, match="needs a bucket"):
        store.read_bytes("s3:///x")


def test_failed_local_write_leaves_old_content_and_no_temp_file(tmp_path, monkeypatch):
    store = ArtifactStore()
    target = tmp_path / "out" / "data.json"
    store.write_text(str(target), "complete")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        store.write_text(str(target), "half")
    assert target.read_text() == "complete"
    assert sorted(p.name for p in target.parent.iterdir()) == ["data.json"]


@pytest.mark.integration
def test_interrupted_multipart_upload_publishes_nothing(s3_endpoint, bucket):
    """A large object whose upload fails before completion never becomes visible."""
    store = ArtifactStore(s3_endpoint)
    uri = f"s3://{bucket}/big.bin"

    def fail_completion(**kwargs):
        raise RuntimeError("connection lost before completion")

    store.s3.meta.events.register("before-call.s3.CompleteMultipartUpload", fail_completion)
    with pytest.raises(RuntimeError, match="connection lost"):
        store.write_bytes(uri, b"x" * (9 * 1024 * 1024))  # above boto3's 8 MiB multipart threshold
    assert not store.exists(uri)
    assert store.list(f"s3://{bucket}") == []


def test_a_local_write_gets_the_mode_open_gives_under_the_umask_not_mkstemps_0600(tmp_path):
    """report.json, report.md and the plots once went out -rw------- beside responses.jsonl's -rw-r--r--."""
    from tritonrl.artifacts.store import process_umask

    before = os.umask(0o027)
    try:
        assert process_umask() == 0o027
        ArtifactStore().write_text(str(tmp_path / "report.md"), "x")
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(before)
    assert (tmp_path / "report.md").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "plain.txt").stat().st_mode & 0o777 == 0o640
