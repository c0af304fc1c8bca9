"""Text utilities: language detection, input checks, secret masking, token counts."""
