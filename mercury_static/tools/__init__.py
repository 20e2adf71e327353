"""Tools for working on mercury-static itself (no command or bundle uses them)."""
