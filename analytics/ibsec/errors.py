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


def require_positive(field: str, value: float) -> float:
    """Return value as float if it is a finite number > 0, else raise ConfigError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(field, f"expected a number, got {value!r}") from None
    if not (number > 0.0 and number < float("inf")):
        raise ConfigError(field, f"must be a positive number, got {value!r}")
    return number


def require_positive_int(field: str, value) -> int:
    """Return value as int if it is a whole number >= 1, else raise ConfigError."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(field, f"expected a whole number, got {value!r}") from None
    if number != value and str(number) != str(value).strip():
        raise ConfigError(field, f"expected a whole number, got {value!r}")
    if number < 1:
        raise ConfigError(field, f"must be at least 1, got {value!r}")
    return number
