"""Declared campaigns' files: the `custom` format (exchange.py)."""
