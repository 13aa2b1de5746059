"""Design-space sweeps: one row per IR file (and manifest run), computed on any concurrent.futures executor.

names (configuration from file names), manifest (a user's table of runs), cache (results by content),
work (what one worker does for one file), engine (submitting, isolating failures), executors (local
processes or Dask), output (streamed CSV/Parquet). `irtools.analysis.sweep` holds the per-file metrics.
"""
