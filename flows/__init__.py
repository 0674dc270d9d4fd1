"""Prefect flows: one per stage, the full pipeline (`tritonrl/full`) and the nightly evaluation.

Thin by design: flow bodies read like the pipeline diagram and call tasks/.
The flows arrive with the Orchestration issue.
"""
