"""Uploads in the upload seed's shapes (docs/design/python.md "Uploads")."""

from __future__ import annotations


class UploadsMixin:
    """Client's upload calls: negotiate, contract, load."""
