"""Typed vision errors: the CLI turns each into one clear line and a non-zero exit.

Each also subclasses ``ValueError`` (or ``OSError`` for files) so plain callers can catch
them the ordinary way; nothing matches on message text.
"""
from __future__ import annotations


class VisionError(ValueError):
    """Something a person can fix: a bad image, folder, profile or card name."""


class ImageError(VisionError):
    """An image that is missing or cannot be decoded."""


class ProfileError(VisionError):
    """A profile folder that is missing, damaged or of another format version."""


class EnrolError(VisionError):
    """A reference folder that cannot be turned into a profile."""
