"""Readers: bytes in, :class:`~hwpscan.models.Document` out. No terminal, no network."""
