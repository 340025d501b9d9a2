"""Misbehaving extractors for the parser-matrix tests, each modelled on a real failure.

Python ones (``module:function``) live in :mod:`extractors`; command-line ones are
small scripts run with ``sys.executable``. They start from our strict view of the
file and then go wrong in one specific, countable way.
"""
