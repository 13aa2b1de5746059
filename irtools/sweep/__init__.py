"""Design-space sweeps: one row per IR file (and manifest run), computed on any concurrent.futures executor.

row (the SWEEP and SWEEP_FINDINGS columns and one file's metrics), measured (the columns of a ZeBu trace
found beside the IR), names (configuration from file names), manifest (a user's table of runs), cache
(results by content), work (what one worker does for one file), engine (submitting, isolating failures),
executors (local processes or Dask), output (streamed CSV/Parquet).
"""
