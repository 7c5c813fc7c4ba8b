"""iVISPAR: the Sliding Geom Puzzle (rules, generator, solver, 2D renderer, prompts, task).

See README.md in this folder for every rule, option, metric and choice.
"""
