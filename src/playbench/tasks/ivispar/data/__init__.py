"""Shipped data of the iVISPAR suite (see ATTRIBUTION.md)."""
