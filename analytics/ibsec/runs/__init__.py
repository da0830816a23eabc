"""Many runs: the resumable store, sweep specs and load sweeps, and the Dask cluster they run on."""
