"""Prefect flows: one per stage, the full pipeline (`tritonrl/full`) and the nightly evaluation.

Thin by design: flow bodies read like the pipeline diagram and call tasks/.
`full.py` chains the stages, `stages.py` holds one flow per stage, `nightly.py` the scheduled
evaluation; deployments are declared in infra/prefect.yaml.
"""
