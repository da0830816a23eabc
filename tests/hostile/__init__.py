"""The reproducers of issue 16 (a package, so that its conftest is not imported as tests/python's `conftest`)."""
