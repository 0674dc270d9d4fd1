"""Storage failures as one line: what failed, at which endpoint, and what to check.

botocore's errors are tracebacks hundreds of lines long that end in a class
name (`NoCredentialsError`, `EndpointConnectionError`). `storage_error` turns
them into a `StorageError` (an OSError; the CLI prints it in one line, exit 2)
that names the URI, the endpoint ("AWS S3" when none is set) and what to check.
The store applies it to every S3 call; the CLI applies it to whatever reaches
it, which covers the boto3 calls MLflow makes for an s3:// artifact root.

`transient` marks failures worth retrying later (endpoint down, overloaded):
botocore has already retried those; the others (credentials, permissions, a
missing bucket) fail the same way every time.

Test: tests/artifacts/test_storage_errors.py (real boto3 against a closed port, moto, a 503 server).
"""

from __future__ import annotations

import sys
from urllib.parse import urlparse

_NOT_FOUND = frozenset({"404", "NoSuchKey", "NotFound"})
_REJECTED_CREDENTIALS = frozenset(
    {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired"}
)
_DENIED = frozenset({"AccessDenied", "403", "Forbidden", "AllAccessDisabled", "AccountProblem"})
# Besides 5xx and 429: the codes S3 answers with that botocore's standard mode retries (throttling, timeouts).
_TRANSIENT_CODES = frozenset(
    {"SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded", "RequestTimeout"}
)
_WRAPPER_PACKAGES = ("boto3", "s3transfer", "mlflow")  # they raise their own errors from botocore's


class StorageError(OSError):
    """An artifact URI could not be read or written; `transient`: the endpoint was down or overloaded (retry later)."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class ArtifactNotFound(StorageError):
    """The store answered that the URI names nothing (a failure to ask is a plain StorageError)."""


def _endpoint_name(url: str | None) -> str:
    """The endpoint as the user set it (scheme://host:port), or "AWS S3" for AWS's own."""
    if not url:
        return "AWS S3"
    parsed = urlparse(url)
    return "AWS S3" if (parsed.hostname or "").endswith("amazonaws.com") else f"{parsed.scheme}://{parsed.netloc}"


def missing_bucket(what: str, bucket: str, endpoint: str | None) -> StorageError:
    return StorageError(
        f"{what}: bucket {bucket!r} does not exist at {_endpoint_name(endpoint)}: create the bucket "
        "first, or check the URI"
    )


def _botocore_error(exc: BaseException | None):
    """`exc` when botocore raised it, or the botocore error a boto3/s3transfer/MLflow wrapper carries; else None."""
    if "botocore" not in sys.modules:
        return None  # nothing imported botocore, so nothing raised its errors
    from botocore.exceptions import BotoCoreError, ClientError

    for _ in range(3):
        if isinstance(exc, (BotoCoreError, ClientError)):
            return exc
        if exc is None or type(exc).__module__.partition(".")[0] not in _WRAPPER_PACKAGES:
            return None
        exc = getattr(exc, "last_exception", None) or exc.__cause__ or exc.__context__
    return None


def _request(err) -> tuple[str, str]:
    """(s3://bucket/key, endpoint URL) of the call that raised `err`, from its traceback: a boto3 error raised outside
    the store (MLflow's upload) names neither, but botocore's `_make_api_call` frame holds the client and the call."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "_make_api_call" and frame.f_globals.get("__name__") == "botocore.client":
            params, client = frame.f_locals.get("api_params") or {}, frame.f_locals.get("self")
            uri = (
                f"s3://{params['Bucket']}/{params.get('Key') or params.get('Prefix') or ''}"
                if params.get("Bucket")
                else ""
            )
            return uri.rstrip("/"), getattr(getattr(client, "meta", None), "endpoint_url", "")
        tb = tb.tb_next
    return "", ""


def storage_error(
    exc: BaseException, uri: str = "", endpoint: str | None = None, attempts: int | None = None
) -> StorageError | None:
    """`exc` as one StorageError line; None when it is no storage failure.

    The store passes `uri`, `endpoint` and `attempts`; for a boto3 error raised
    elsewhere (MLflow) they come from the error's traceback.
    """
    if isinstance(exc, StorageError):
        return exc
    err = _botocore_error(exc)
    if err is None:
        return None
    from botocore.exceptions import (
        ClientError,
        ConnectionError,
        CredentialRetrievalError,
        HTTPClientError,
        NoCredentialsError,
        PartialCredentialsError,
    )
    from botocore.retries.standard import DEFAULT_MAX_ATTEMPTS

    request_uri, request_endpoint = ("", "") if uri else _request(err)
    endpoint = endpoint or request_endpoint
    where = _endpoint_name(endpoint)
    what = uri or request_uri or "S3"
    if isinstance(err, (NoCredentialsError, PartialCredentialsError, CredentialRetrievalError)):
        return StorageError(
            f"{what}: no usable S3 credentials for {where} ({err}): set AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment"
        )
    if isinstance(err, (ConnectionError, HTTPClientError)):
        return StorageError(
            f"{what}: cannot reach {where} ({type(err).__name__} after "
            f"{attempts or DEFAULT_MAX_ATTEMPTS} attempts): check that the endpoint is up and that "
            "storage.s3_endpoint_url names it",
            transient=True,
        )
    if not isinstance(err, ClientError):
        return StorageError(f"{what}: S3 request to {where} failed: {err}")
    error, meta = err.response.get("Error", {}), err.response.get("ResponseMetadata", {})
    code = error.get("Code", "")  # "404" for a HEAD, which has no body
    status = meta.get("HTTPStatusCode") or 0
    bucket = urlparse(what).netloc if what.startswith("s3://") else error.get("BucketName", "")
    if code in _NOT_FOUND:
        return ArtifactNotFound(f"{what}: no such object")
    if code == "NoSuchBucket":
        return missing_bucket(what, bucket, endpoint)
    if code in _REJECTED_CREDENTIALS:
        return StorageError(
            f"{what}: {where} rejected the credentials ({code}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        )
    if code in _DENIED or status == 403:
        return StorageError(
            f"{what}: access denied by {where} ({code}): check that these credentials may read and "
            f"write bucket {bucket!r}"
        )
    if status >= 500 or status == 429 or code in _TRANSIENT_CODES:
        return StorageError(
            f"{what}: {where} kept failing ({code or 'HTTP'} {status}, {meta.get('RetryAttempts', 0) + 1} "
            "attempts): it is overloaded or down; try again later",
            transient=True,
        )
    return StorageError(f"{what}: S3 error at {where}: {code} {error.get('Message', '')}".rstrip())
