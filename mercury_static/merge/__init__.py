"""Annotators' exports -> one dataset, agreement, and the output formats."""
