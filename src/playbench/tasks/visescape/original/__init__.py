"""The authors' twenty VisEscape rooms, read at run time from a clone of `pull-ups/VisEscape-demo`.

Nothing of that repository is shipped (it has no licence): `clone.py` reads its files, `pysource.py`
reads its Python room definitions as data (never running them), `engine.py` plays them by the
original game's rules and `task.py` is the `visescape/original` task.
"""
