"""Records -> a bundle's data: the build pipeline, streamed chunk by chunk."""
