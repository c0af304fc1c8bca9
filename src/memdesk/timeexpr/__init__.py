"""Time expressions: find and resolve relative and absolute dates in text against a reference time."""
