"""Where a training stage (SFT, GRPO) writes: a fresh output URI, staged locally, manifest published last.

Both stages promise the same thing — a completed output has `manifest.json`,
an interrupted one has none and is never mistaken for a model — so the
checks before training and the publishing after it live here once.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

from tritonrl.artifacts.datasets_io import code_version
from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore, join, local_path, upload_tree
from tritonrl.config import Config


def prepare_output(
    config: Config, store: ArtifactStore, out_uri: str, error: type[Exception]
) -> tuple[Path | None, Path]:
    """(local output directory or None for s3, the directory to train into); raises `error` if `out_uri` is taken."""
    if store.exists(join(out_uri, MANIFEST_FILE)):
        raise error(f"{out_uri} already holds a completed run; choose another --out")
    local = local_path(out_uri)
    if local is not None and local.is_dir() and any(local.iterdir()):
        raise error(f"{out_uri} holds files of an unfinished run; delete it or choose another --out")
    work = local or config.home / "runs" / out_uri.rstrip("/").rsplit("/", 1)[-1]
    shutil.rmtree(work, ignore_errors=True)  # a staging directory left by an interrupted s3 run
    work.mkdir(parents=True)
    return local, work


def publish_output(
    config: Config,
    store: ArtifactStore,
    out_uri: str,
    local: Path | None,
    work: Path,
    manifest: dict,
    skip: set[str] = frozenset(),
) -> None:
    """Upload a staged s3 output (leaving out `skip`), then write the manifest last: the output is complete."""
    if local is None:
        upload_tree(store, work, out_uri, skip=skip)
    manifest = {
        **manifest,
        "code_version": code_version(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "config": config.to_dict(),
    }
    store.write_text(join(out_uri, MANIFEST_FILE), json.dumps(manifest, indent=2, default=str))
    if local is None:
        shutil.rmtree(work)
