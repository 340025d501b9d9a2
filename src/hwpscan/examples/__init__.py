"""Example extractors for trying ``verify --expect fixed``: not part of the scanner.

Two stand-ins for a deployed text-extraction step (``python -m ... FILE`` prints the
file's text): :mod:`~hwpscan.examples.broken_extractor` makes each UTF-16 code unit of HWP
5 ``PARA_TEXT`` a character, as the incident's parser did, so a Hancom PUA-A character
comes out as two lone surrogates; :mod:`~hwpscan.examples.fixed_extractor` decodes it as
UTF-16. HWPX and PDF files go through hwpscan's own readers in both.
"""
