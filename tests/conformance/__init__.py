"""The Store conformance suite (one suite, every backend)."""
