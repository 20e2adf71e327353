"""The names of the input formats, apart from their readers: the CLI lists them in its help without importing
the readers."""

FORMATS = ("auto", "csv", "json", "jsonl", "mercury", "summhay", "qags", "parquet", "label-studio")
"""What `--format` of build and eval takes: `auto` tells each file's format from its name and first record."""
