"""Artifacts: the store (local or S3), published datasets, training outputs, shard datasets."""
