"""Plumbing: the event-loop bridge, tracing, optional extras, data paths, JSON files, CPU counts."""
