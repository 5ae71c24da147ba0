"""Tigris & Euphrates in other frameworks: OpenSpiel (``tigris.interop.openspiel``) and
PettingZoo (``tigris.interop.pettingzoo``), extras of their own.

Importing this package imports neither framework; each module imports its framework
when it is imported, and says which extra to install when it is missing.  What a player
may see, as the frameworks' observations, is ``tigris.interop.views``.
"""

__all__: list[str] = []
