"""The dataset settings: their model and checks, and the files they are read from."""
