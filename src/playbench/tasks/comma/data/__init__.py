"""Figures shipped with the COMMA suite (see comma/twin.py)."""
