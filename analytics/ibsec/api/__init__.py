"""The Python API of ibsec (`import ibsec`; docs/python-api.md): run, sweep, collect, analytic, trace.

Each function goes through what the `ibsec` command uses (EnginePoint, the resumable store, the Markov model,
the engine's trace tools), so a script and the command give the same numbers for the same input.
"""
