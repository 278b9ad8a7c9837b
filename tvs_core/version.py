"""The library version, in one place (the manifest records it)."""

__version__ = "0.2.0"
