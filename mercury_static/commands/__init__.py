"""Each command of the CLI as one plain function: the whole command, given the parsed options, returning a
typed result. cli.py wraps each one (options, printing, exit code) and nothing else."""
