"""Training: models, the tiny CPU student, launching workers, process groups; SFT and HRD-GRPO internals."""
