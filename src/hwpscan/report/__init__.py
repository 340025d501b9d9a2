"""Turning results into tables and files: pivots (pandas), terminal tables, exporters."""
