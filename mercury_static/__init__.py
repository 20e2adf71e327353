"""mercury-static: semantic-assisted, cross-text labeling as a static web bundle."""

__version__ = "0.1.0"
