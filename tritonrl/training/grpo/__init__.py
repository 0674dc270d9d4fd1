"""The HRD-GRPO worker and its mathematics."""
