"""Split a verifier stage's work into shards and merge the shard outputs back, by URI.

Why: filter and evaluate spend their time verifying (and, for evaluate,
generating) candidates, one problem at a time per device. One `cuda` host
verifies with all its GPUs; more hosts add throughput only when each takes
a part of the work. A shard run reads the whole stage input, takes the
problems `assign` gives its index, does the stage's work on them and
publishes its rows as one shard dataset (`<artifact_root>/shards/
<stage>-<input key>/shard-<k>of<n>-<digest>/`, manifest last like every
dataset; the input key and shard name keep shards of different inputs, or
two empty shards of one, from sharing a content-addressed URI). The merge
step reads the shard datasets by URI, checks that they are exactly the
shards of one input (every index once, problems disjoint and complete), puts
the rows back in the unsharded order and hands them to the same code that
publishes the unsharded stage's outputs — so a merged output is the one
output the unsharded stage would have produced, and nothing is published as
complete before every shard is.

Shards split by problem, never inside one: the verifier runs a problem's
reference once for all its candidates, so splitting a problem would repeat
that work. Assignment is deterministic (a function of the input only), so
a rerun's shards are the same and a cached shard stays valid.

Never imports prefect. Test: tests/artifacts/test_shards.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tritonrl.artifacts.datasets_io import PublishedDataset, publish_dataset, read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore, join

SHARDS_DIR = "shards"  # under the artifact root; apart from datasets/, which holds the stages' real outputs


class ShardError(ValueError):
    """Shard parameters are out of range, or the shard outputs given to a merge are not one complete set."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (0-based) of `count`; `label` is the 1-based form people read, e.g. `2/4`."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ShardError(f"shard count must be >= 1, got {self.count}")
        if not 0 <= self.index < self.count:
            raise ShardError(f"shard index must be in 0..{self.count - 1} for {self.count} shards, got {self.index}")

    @property
    def label(self) -> str:
        return f"{self.index + 1}/{self.count}"


def assign(weights: Mapping[str, int], count: int) -> list[list[str]]:
    """Problems (name → candidates to verify) into `count` groups of about equal work.

    Heaviest problem first, each to the group with the least work so far
    (ties: the lower index); names break ties between equal weights, so the
    result depends only on the input. Groups keep the input's order.
    """
    if count < 1:
        raise ShardError(f"shard count must be >= 1, got {count}")
    load = [0] * count
    owner: dict[str, int] = {}
    for name in sorted(weights, key=lambda n: (-weights[n], n)):
        group = min(range(count), key=lambda g: (load[g], g))
        owner[name] = group
        load[group] += weights[name]
    return [[name for name in weights if owner[name] == group] for group in range(count)]


def publish_shard(
    store: ArtifactStore,
    artifact_root: str,
    stage: str,
    shard: Shard,
    input_uri: str,
    input_digest: str,
    keys: list[str],
    total_keys: int,
    rows: list[dict[str, Any]],
) -> PublishedDataset:
    """One shard's rows (each with a sortable `position` in the unsharded order) as a shard dataset.

    The manifest names the input, the shard, the problems it covered and how
    many the whole input has, which is what `read_shards` checks a set against.
    """
    manifest = {
        "stage": f"{stage}-shard",
        "input": input_uri,
        "input_digest": input_digest,
        "shard": shard.index,
        "shards": shard.count,
        "keys": list(keys),
        "total_keys": total_keys,
    }
    input_key = hashlib.sha256(f"{input_uri}\n{input_digest}".encode()).hexdigest()[:12]
    root = join(artifact_root, SHARDS_DIR, f"{stage}-{input_key}")
    return publish_dataset(store, root, f"shard-{shard.index + 1}of{shard.count}", rows, manifest)


def read_shards(store: ArtifactStore, stage: str, input_uri: str, uris: list[str]) -> list[dict[str, Any]]:
    """The rows of a complete set of `stage` shard datasets for `input_uri`, in unsharded order.

    Refuses (ShardError, naming the shard and what to do) a set with a
    missing, repeated or foreign shard, shards of different inputs or
    counts, or problems covered twice or not at all.
    """
    if not uris:
        raise ShardError(f"{stage} merge: no shard outputs given")
    manifests = [read_manifest(store, uri) for uri in uris]
    for uri, manifest in zip(uris, manifests):
        if manifest.get("stage") != f"{stage}-shard":
            raise ShardError(f"{stage} merge: {uri} is a {manifest.get('stage')!r} dataset, not a shard of {stage}")
        if manifest["input"] != input_uri:
            raise ShardError(f"{stage} merge: shard {uri} was made from {manifest['input']}, not {input_uri}")
    count = manifests[0]["shards"]
    digests = {m["input_digest"] for m in manifests}
    if any(m["shards"] != count for m in manifests) or len(digests) != 1:
        raise ShardError(
            f"{stage} merge: the shards come from different runs (shard counts "
            f"{sorted({m['shards'] for m in manifests})}, input digests {sorted(digests)}); "
            "merge the outputs of one sharded run"
        )
    indices = sorted(m["shard"] for m in manifests)
    if indices != list(range(count)):
        missing = [i + 1 for i in range(count) if i not in indices]
        repeated = sorted({i + 1 for i in indices if indices.count(i) > 1})
        raise ShardError(
            f"{stage} merge: expected shards 1..{count} once each; missing {missing}, repeated "
            f"{repeated}; rerun the stage (finished shards are reused)"
        )
    covered: dict[str, int] = {}
    for manifest in manifests:
        for key in manifest["keys"]:
            if key in covered:
                raise ShardError(
                    f"{stage} merge: problem {key} is in shards {covered[key] + 1} and "
                    f"{manifest['shard'] + 1}; shards of one run never overlap"
                )
            covered[key] = manifest["shard"]
    if len(covered) != manifests[0]["total_keys"]:
        raise ShardError(f"{stage} merge: the shards cover {len(covered)} of {manifests[0]['total_keys']} problems")
    rows = [row for uri in uris for row in read_dataset(store, uri)]
    return sorted(rows, key=lambda row: row["position"])
