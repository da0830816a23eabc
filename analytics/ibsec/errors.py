"""Errors that reach the user, each naming the field or file at fault."""


class IbsecError(Exception):
    """A user-facing error; the CLI prints it and exits non-zero."""


class ConfigError(IbsecError, ValueError):
    """A parameter is missing, malformed or impossible."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"invalid '{field}': {problem}")
        self.field = field
        self.problem = problem

    def __reduce__(self):  # crosses to and from Dask workers with its own constructor arguments
        return ConfigError, (self.field, self.problem)

