"""The data model and the rules every step shares: records, safe I/O, strict YAML, names, Mercury's ids."""
