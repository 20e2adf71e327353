"""Input files -> records: one module per input format."""
