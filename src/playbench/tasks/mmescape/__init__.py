"""MM-Escape (EscapeCraft): procedural first-person 3D escape rooms built around prop chains.

See README.md in this folder for every rule, option, metric and choice.
"""
