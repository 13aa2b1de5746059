"""The Dash dashboard and the static HTML report over irtools.analysis."""
