"""The package's version, in a module of its own so that no module of the package imports the package itself."""

__version__ = "0.1.0"
