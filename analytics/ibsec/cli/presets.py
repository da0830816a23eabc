"""`ibsec presets`: the NAS ON/OFF presets (estimates) and their capacities."""

from __future__ import annotations

from .options import print_json


def execute(args) -> None:
    from ..models import markov, presets

    table = presets.load(args.file)
    if args.json:
        print_json([{**p.__dict__, "duty_cycle": p.duty_cycle} for p in table])
        return
    print(f"{'preset':<16} {'ON ms':>8} {'OFF ms':>9} {'duty':>6} {'cap 2KB':>8} {'cap 16KB':>9}  status")
    for p in table:
        caps = [markov.capacity(kb * 1024 // 16, p.on_mean_ms, p.off_mean_ms, 0.9) for kb in (2, 16)]
        print(f"{p.name:<16} {p.on_mean_ms:>8.3g} {p.off_mean_ms:>9.4g} {p.duty_cycle:>6.3f} {caps[0]:>8} "
              f"{caps[1]:>9}  {p.status}")


def add_parser(commands) -> None:
    pre = commands.add_parser("presets", help="list the NAS ON/OFF presets and their capacities")
    pre.add_argument("--file", help="a preset CSV to read instead of the packaged one")
    pre.add_argument("--json", action="store_true", help="print JSON")
    pre.set_defaults(func=execute)
