"""Prefect tasks: thin adapters over `tritonrl` stage entry points (retries, caching on URIs, artifacts).

The tasks arrive with the stages they wrap.
"""
