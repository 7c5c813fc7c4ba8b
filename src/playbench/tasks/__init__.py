"""Built-in suites. Each suite is a folder here whose `registration.py` registers its task ids
(and any suite-specific agents), so a suite owner never edits a file outside the folder."""

import importlib
import importlib.util
import pkgutil

for _suite in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg):
    if importlib.util.find_spec(f"{__name__}.{_suite}.registration") is not None:
        importlib.import_module(f"{__name__}.{_suite}.registration")
