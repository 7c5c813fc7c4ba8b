"""playbench: published interactive benchmarks for LLMs, VLMs and humans."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("playbench")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
