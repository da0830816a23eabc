"""The names the cache models take as choices, and the defaults of trace sizing, apart from the models' numerics.

The `ibsec` command builds every subcommand's parser at start: were these in the modules that use them, `ibsec
--help` would import NumPy and SciPy (half a second) to list four names. The models import them from here.
"""

# Replacement policies the hit-rate predictor covers (models/hitrate.py).
PREDICTOR_POLICIES = ("lru", "random", "fifo")
# How ranks are put on nodes (models/sessions.py).
PLACEMENTS = ("block", "cyclic")
# The laws `ibsec analytic fit` fits to ON and OFF lengths (models/onoff_fit.py).
FIT_FAMILIES = ("exp", "lognormal", "weibull", "hyperexp")
# The ON/OFF laws `ibsec analytic size` takes from a trace: the measured periods, or a fitted law.
SIZE_FAMILIES = ("empirical", *FIT_FAMILIES)
# The card and network trace sizing replays on unless the caller names a config: the paper's 16-node cluster.
SIZING_CONFIG = "paper-16"
# The user's cache folder trace sizing keeps its replays in unless the caller names one ($XDG_CACHE_HOME/ibsec/KIND).
SIZING_CACHE_KIND = "sizing"
