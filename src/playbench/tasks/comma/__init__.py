"""COMMA: a solver who sees a puzzle module and an expert who holds its manual talk it through.

Ten puzzle modules (`modules/`) behind one conversation task (`task.py`); see README.md.
Kept free of imports so registering the tasks stays cheap.
"""
