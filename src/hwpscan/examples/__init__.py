"""Example extractors for trying ``verify --expect fixed``: not part of the scanner.

Two tiny stand-ins for a deployed text-extraction step, runnable with ``python -m``:

- :mod:`hwpscan.examples.broken_extractor` decodes HWP 5 ``PARA_TEXT`` with ``chr()``
  per UTF-16 code unit, like the incident's parser: a Hancom PUA-A character comes out
  as two lone surrogates, and the text cannot be encoded as UTF-8;
- :mod:`hwpscan.examples.fixed_extractor` decodes the same bytes as UTF-16, so pairs
  become the one character they stand for.

Both print the text of the file named on the command line as UTF-8 (the broken one with
``surrogatepass``, as a careless pipeline would write it). HWPX and PDF files go through
hwpscan's own readers in both: the incident was in the HWP 5 path only.
"""
