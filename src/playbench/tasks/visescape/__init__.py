"""VisEscape: twenty finite-state escape rooms with rendered views (see README.md)."""
