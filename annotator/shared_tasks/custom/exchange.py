"""The `custom` format of declared campaigns, found by the formats registry like every shared task's format.

Its code lives with the rest of declared campaigns (annotator/declared/exchange.py); this module only
declares it where the registry looks, so the registry needs no exception for it.
"""
from __future__ import annotations

from annotator.declared.exchange import FORMAT

__all__ = ["FORMAT"]
