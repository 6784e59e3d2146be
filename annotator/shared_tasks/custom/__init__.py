"""Declared campaigns' files: the `custom` format (annotator/declared/exchange.py)."""
