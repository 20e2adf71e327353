"""The names of merge's and gold's outputs, apart from their writers: the CLI lists them in its help without
importing the merge."""

DATASET_FORMATS = ("mercury-static", "mercury", "jsonl", "argilla", "parquet", "label-studio")
"""The formats of a dataset of records (merge's and gold's)."""
FORMATS = (*DATASET_FORMATS, "sentences")
"""merge's formats: a dataset, or `sentences`, the table of every summary sentence per annotator (CSV)."""
