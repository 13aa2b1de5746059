"""The analysis core: one loaded IR as pandas tables (timelines, buffers, DRAM traffic, layers).

The CLI, the dashboard and the HTML report are thin fronts over this package; it imports
neither plotly nor dash.
"""

from irtools.analysis.analysis import Analysis, AnalysisOptions, analyze
from irtools.analysis.io import read_table, write_tables
from irtools.analysis.tables import TABLES, TableSpec
from irtools.analysis.timeline import MODELS
from irtools.errors import AnalysisError

__all__ = [
    "MODELS",
    "TABLES",
    "Analysis",
    "AnalysisError",
    "AnalysisOptions",
    "TableSpec",
    "analyze",
    "read_table",
    "write_tables",
]
