"""The bundle: its folder, files, record index, queues, packed page, and serving it."""
