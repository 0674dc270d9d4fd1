"""Read, write, list and test artifacts by URI: `file://…`, plain paths, or `s3://bucket/key`.

Stages hand each other URIs, so every stage output goes through here. Writes
are atomic: a reader sees the whole object or nothing. Local files are
written to a temporary sibling and renamed (with the mode a plain `open()`
gives under the process's umask, e.g. -rw-r--r--); S3 objects become visible only
when their upload completes (a single PUT, or a completed multipart upload).
The S3 endpoint is configurable (MinIO, moto's server, real S3).

Every S3 failure becomes one `StorageError` line (storage_errors.py).
botocore's standard retry mode retries the transient ones only (throttling,
5xx, connection errors and timeouts) with exponential backoff, at most
`AWS_MAX_ATTEMPTS` attempts (3 unless set); missing credentials, access
denied and missing buckets fail at once. "Not there" (`ArtifactNotFound`) is
told apart from "could not ask", so an existence check never mistakes a dead
endpoint for a missing object.

Test: tests/artifacts/test_store.py (a moto S3 server on loopback and file://), tests/artifacts/test_storage_errors.py.
"""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

from tritonrl.artifacts.storage_errors import ArtifactNotFound, StorageError, missing_bucket, storage_error
from tritonrl.config import StorageConfig

MANIFEST_FILE = "manifest.json"  # written last into an artifact directory: its presence means the artifact is complete
# botocore waits 60 s per attempt by default: a dead or black-holed endpoint should fail in seconds.
S3_CONNECT_TIMEOUT_S = 5
S3_READ_TIMEOUT_S = 30


def utc_stamp() -> str:
    """Now in UTC as artifact and run names carry it (sortable, no separators a URI or a path minds)."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def join(uri: str, *parts: str) -> str:
    """Append path parts to a URI or path with single slashes."""
    return "/".join([uri.rstrip("/"), *(p.strip("/") for p in parts)])


@dataclass(frozen=True)
class _S3Location:
    bucket: str
    key: str


def _local_path(uri: str) -> Path | None:
    """The filesystem path for file:// URIs and plain paths, None for s3://."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise StorageError(f"{uri}: file URIs must be local (file:///path)")
        return Path(unquote(parsed.path))
    if parsed.scheme == "s3":
        return None
    if parsed.scheme and len(parsed.scheme) > 1:
        raise StorageError(f"{uri}: unsupported scheme {parsed.scheme!r}; use file://, s3:// or a path")
    return Path(uri)


def _s3_location(uri: str) -> _S3Location:
    parsed = urlparse(uri)
    if not parsed.netloc:
        raise StorageError(f"{uri}: an S3 URI needs a bucket, e.g. s3://my-bucket/path")
    return _S3Location(parsed.netloc, parsed.path.lstrip("/"))


class ArtifactStore:
    """URI-addressed storage; one instance per endpoint configuration."""

    def __init__(self, s3_endpoint_url: str = "") -> None:
        self.s3_endpoint_url = s3_endpoint_url
        self._client = None
        self._buckets_seen: set[str] = set()

    @classmethod
    def of(cls, storage: StorageConfig) -> ArtifactStore:
        """The store a config's `storage` section describes."""
        return cls(storage.s3_endpoint_url)

    @property
    def s3(self):
        """A boto3 S3 client, created on first use (boto3 resolves credentials and region; retries: module docstring)."""
        if self._client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                retries={"mode": "standard"}, connect_timeout=S3_CONNECT_TIMEOUT_S, read_timeout=S3_READ_TIMEOUT_S
            )
            try:
                self._client = boto3.client("s3", endpoint_url=self.s3_endpoint_url or None, config=config)
            except ValueError as exc:
                raise StorageError(
                    f"storage.s3_endpoint_url {self.s3_endpoint_url!r} is not usable: {exc}; "
                    "give a URL such as http://127.0.0.1:9000"
                ) from exc
        return self._client

    def write_bytes(self, uri: str, data: bytes) -> None:
        path = _local_path(uri)
        if path is None:
            loc = _s3_location(uri)
            self._s3_call(uri, lambda: self.s3.upload_fileobj(io.BytesIO(data), loc.bucket, loc.key))
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o666 & ~process_umask())  # mkstemp's file is 0600; the object gets an open()'s mode
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def write_text(self, uri: str, text: str) -> None:
        self.write_bytes(uri, text.encode())

    def read_bytes(self, uri: str) -> bytes:
        path = _local_path(uri)
        if path is None:
            loc = _s3_location(uri)
            buffer = io.BytesIO()
            self._s3_call(uri, lambda: self.s3.download_fileobj(loc.bucket, loc.key, buffer))
            return buffer.getvalue()
        if not path.is_file():
            raise ArtifactNotFound(f"{uri}: no such file")
        return path.read_bytes()

    def read_text(self, uri: str) -> str:
        return self.read_bytes(uri).decode()

    def exists(self, uri: str) -> bool:
        path = _local_path(uri)
        if path is not None:
            return path.exists()
        loc = _s3_location(uri)
        try:
            self._s3_call(uri, lambda: self.s3.head_object(Bucket=loc.bucket, Key=loc.key))
        except ArtifactNotFound:
            return False
        return True

    def list(self, prefix_uri: str) -> list[str]:
        """URIs of all objects/files under a prefix (recursively), sorted."""
        path = _local_path(prefix_uri)
        if path is not None:
            if not path.exists():
                return []
            base = prefix_uri.rstrip("/")
            return sorted(
                join(base, p.relative_to(path).as_posix())
                for p in path.rglob("*")
                if p.is_file() and not p.name.endswith(".tmp")
            )
        loc = _s3_location(prefix_uri)
        prefix = loc.key.rstrip("/") + "/" if loc.key else ""
        pages = self._s3_call(
            prefix_uri,
            lambda: list(self.s3.get_paginator("list_objects_v2").paginate(Bucket=loc.bucket, Prefix=prefix)),
        )
        return sorted(f"s3://{loc.bucket}/{obj['Key']}" for page in pages for obj in page.get("Contents", []))

    def _s3_call(self, uri: str, call):
        """`call()`, its S3 failures as StorageError; a 404 from a missing bucket says so instead of "no such object"."""
        try:
            return call()
        except Exception as exc:
            client = self._client
            endpoint = client.meta.endpoint_url if client is not None else self.s3_endpoint_url
            attempts = client.meta.config.retries.get("total_max_attempts") if client is not None else None
            error = storage_error(exc, uri, endpoint, attempts)
            if error is None or error is exc:
                raise
            bucket = _s3_location(uri).bucket
            if isinstance(error, ArtifactNotFound) and not self._bucket_exists(bucket):
                error = missing_bucket(uri, bucket, endpoint)
            raise error from exc

    def _bucket_exists(self, bucket: str) -> bool:
        """False only when the endpoint says the bucket is missing (HEAD answers a bare 404 for a key and a bucket alike)."""
        if bucket not in self._buckets_seen:
            try:
                self.s3.head_bucket(Bucket=bucket)
            except Exception as exc:  # only a 404 counts: could not ask, or may not ask, and the key's 404 stands
                return not isinstance(storage_error(exc), ArtifactNotFound)
            self._buckets_seen.add(bucket)
        return True


def process_umask() -> int:
    """The process's umask, read without changing it where Linux tells it (/proc), else set and put back."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def local_path(uri: str) -> Path | None:
    """The local directory a file:// URI or plain path names; None for s3:// (stage locally, then upload)."""
    parsed = urlparse(uri)
    if parsed.scheme == "s3":
        return None
    return Path(unquote(parsed.path) if parsed.scheme == "file" else uri).resolve()


def upload_tree(store: ArtifactStore, local: Path, uri: str, skip: set[str] = frozenset()) -> None:
    """Copy every file under `local` to `uri`, leaving out top-level entries named in `skip`."""
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        relative = path.relative_to(local).as_posix()
        if relative.split("/")[0] not in skip:
            store.write_bytes(join(uri, relative), path.read_bytes())
