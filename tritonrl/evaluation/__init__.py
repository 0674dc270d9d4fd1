"""Evaluation metrics and the report."""
