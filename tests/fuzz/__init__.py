"""Fuzz tests: bad input never breaks `irtools validate` (see test_fuzz_validate.py)."""

import warnings

# When a property fails, hypothesis's pytest plugin imports libcst to write a patch, and libcst's
# import warns (DeprecationWarning from mypy_extensions); with filterwarnings = error that turns the
# failure report into an INTERNALERROR that hides the falsifying example. Import it once, quietly.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst is optional
        pass
