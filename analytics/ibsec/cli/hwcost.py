"""`ibsec hwcost`: area, power and access time of the GCM unit, SKC and prefetch buffer (paper 3.1)."""

from __future__ import annotations

from pathlib import Path

from ..numeric import count_option, positive_real_option, whole_option
from ..units import parse_size
from .options import output_file, print_json


def execute(args) -> None:
    from ..models import hwcost
    from ..output.figures import command_line

    gcm = hwcost.GcmCost(args.gcm_kgates, args.gcm_mhz, args.gate_density, args.gate_power)
    spec = hwcost.CardSpec(skc_bytes=parse_size(args.skc, "--skc"), ways=args.ways, pb_entries=args.pb,
                           block_bytes=args.block, tech_nm=args.tech, gcm=gcm)
    if args.from_result is not None:
        rate = hwcost.rate_from_result(Path(args.from_result))
    else:
        rate = hwcost.rate_from_clock(args.clock_mhz)
    rows = hwcost.cost_table(spec, rate, args.cacti)
    if args.out:
        hwcost.write_table(Path(args.out), spec, rate, rows, command_line(args.argv))
    if args.json:
        print_json(hwcost.as_dict(spec, rate, rows))
    else:
        print(hwcost.text_table(spec, rate, rows))
        if args.out:
            print(f"wrote {args.out}")


def add_parser(commands) -> None:
    hw = commands.add_parser(
        "hwcost", help="area, power and access time of the GCM unit, SKC and prefetch buffer (paper 3.1)",
        description="The hardware cost of the card's security parts beside the paper's 3.1 figures: the GCM unit "
                    "from its gate count, the SKC and prefetch buffer from CACTI 7 (the shipped table, or a live "
                    "CACTI run for other geometries, cached in ~/.cache/ibsec/cacti/). SKC/PB power = leakage + "
                    "energy per look-up x look-up rate. Units: mm2, W, ns. docs/hardware-cost.md has the model.")
    hw.add_argument("--skc", default="16KB", help="SKC capacity in bytes, e.g. 2KB, 16KB, 192B (default: %(default)s)")
    hw.add_argument("--ways", type=whole_option(minimum=0), default=0,
                    help="SKC associativity, 0 = fully associative (default: %(default)s)")
    hw.add_argument("--pb", type=whole_option(minimum=0), default=16,
                    help="prefetch buffer entries, 0 = no buffer (default: %(default)s)")
    hw.add_argument("--block", type=count_option, default=32,
                    help="bytes per SKC line and buffer entry (CACTI block size) (default: %(default)s)")
    hw.add_argument("--tech", type=count_option, default=45, help="technology node, nm (default: %(default)s)")
    rate = hw.add_mutually_exclusive_group()
    rate.add_argument("--clock-mhz", type=positive_real_option, default=270.0,
                      help="one look-up per cycle of this clock, MHz (default: %(default)s, the card clock)")
    rate.add_argument("--from-result", metavar="RESULT.json",
                      help="take the look-up rate per card from an `ibsec run` result instead")
    hw.add_argument("--cacti", metavar="PATH",
                    help="CACTI 7 binary for geometries the table lacks (default: $CACTI_BIN); "
                         "it must have its tech_params/ folder beside it")
    hw.add_argument("--gcm-kgates", type=positive_real_option, default=500.0,
                    help="GCM unit size, kgates (default: %(default)s)")
    hw.add_argument("--gcm-mhz", type=positive_real_option, default=271.0,
                    help="GCM unit clock, MHz (default: %(default)s)")
    hw.add_argument("--gate-density", type=positive_real_option,
                    help="library density, kgates/mm2 (default: 1480, the 45 nm figure; needed for other nodes)")
    hw.add_argument("--gate-power", type=positive_real_option,
                    help="library power, nW/MHz/gate (default: 2.6, the 45 nm figure; needed for other nodes)")
    hw.add_argument("--json", action="store_true", help="print JSON")
    hw.add_argument("--out", type=output_file, metavar="FILE",
                    help="also write the table: FILE.parquet as Parquet, else CSV (and FILE.meta.json beside it)")
    hw.set_defaults(func=execute)
