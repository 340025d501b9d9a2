"""Detectors and repair: pure functions over text, no I/O."""
