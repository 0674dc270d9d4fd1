"""Prefect tasks: thin adapters over `tritonrl` stage entry points (retries, caching on URIs, artifacts).

`stages.py` holds one task per stage of `tritonrl.stages.registry`.
"""
