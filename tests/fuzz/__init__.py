"""Fuzz tests: bad input never breaks `irtools validate` (see test_fuzz_validate.py)."""
