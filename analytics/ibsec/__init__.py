"""ibsec: analytic models, sweeps and plots around the ibsec simulator engine."""

__version__ = "0.1.0"
