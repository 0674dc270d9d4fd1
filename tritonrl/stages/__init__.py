"""The pipeline's stages, one module per stage, and `pipeline`: the adapters flows and the CLI call."""
