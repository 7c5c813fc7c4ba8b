"""Exception types shared by every layer."""


class PlaybenchError(Exception):
    """Base class for errors playbench reports to the user as a message rather than a traceback."""


class ConfigError(PlaybenchError):
    """A bad command-line value, task option, agent name or model spec. The CLI exits with status 2."""
