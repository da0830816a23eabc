"""`ibsec analytic fit`: sessions, ON/OFF periods and fitted laws against traces whose answer is known."""

import json
import subprocess
import sys

import numpy as np
import pytest

from ibsec.errors import IbsecError
from ibsec.models import onoff_fit
from ibsec.models.renewal import Distribution

pytestmark = pytest.mark.unit

MS = 1_000_000  # ns


def write_trace(path, events, processes=3, comms=()):
    lines = ["ibsec-trace 2", f"processes {processes}", "time_unit ns", "origin synthetic test", "note hand-made",
             *comms, "events", *events, f"end {len(events)}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def bursts(rank, peer, count, messages, period_ns, spacing_ns, nbytes):
    """`count` bursts of `messages` sends, one every `spacing_ns`, bursts `period_ns` apart."""
    events = []
    for b in range(count):
        for m in range(messages):
            t = b * period_ns + m * spacing_ns
            events.append((t, f"{rank} {t} {t + 100} send {peer} {nbytes} 0 0"))
    return events


@pytest.fixture
def two_sessions(tmp_path):
    # 0-1: 5 bursts of 4 messages of 512 B (2 packets) 1 us apart, every 10 ms. 0-2: 3 bursts of 1 message every 20 ms.
    events = bursts(0, 1, 5, 4, 10 * MS, 1000, 512) + bursts(2, 0, 3, 1, 20 * MS, 0, 100)
    events.sort()
    return write_trace(tmp_path / "two.trace", [e for _, e in events])


def test_sessions_and_periods_are_found(two_sessions):
    result = onoff_fit.fit_trace(two_sessions, gap_threshold_ms=1.0)
    periods = result.periods
    assert periods.sessions == 2
    assert periods.sessions_per_card.tolist() == [2, 1, 1]
    assert periods.on_ms.size == 5 + 3 and periods.off_ms.size == 4 + 2
    # a burst of 0-1 spans 3 us of spacing plus the last message's wire time (512 B at 1 B/ns)
    assert sorted(periods.on_ms)[-1] == pytest.approx((3000 + 512) / MS)
    assert sorted(periods.lookups_per_on.tolist()) == [1, 1, 1, 8, 8, 8, 8, 8]
    assert sorted(periods.off_ms)[-1] == pytest.approx(20 - 256 / MS)
    assert sorted(periods.off_ms)[0] == pytest.approx(10 - (3000 + 512) / MS)


def test_default_threshold_falls_between_the_modes(two_sessions):
    periods = onoff_fit.fit_trace(two_sessions).periods
    # gaps are 0.488 us inside bursts (1 us spacing less 512 ns on the wire), 10 ms and 20 ms between them
    assert 0.01 < periods.gap_threshold_ms < 1
    assert periods.on_ms.size == 8


def test_collectives_touch_the_sessions_their_algorithms_do(tmp_path):
    events = ["0 0 10 alltoall 0 1024", "1 0 10 alltoall 0 1024", "2 0 10 alltoall 0 1024", "3 0 10 alltoall 0 1024",
              "0 20 30 bcast 0 0 64", "1 20 30 bcast 0 0 64", "2 20 30 bcast 0 0 64", "3 20 30 bcast 0 0 64"]
    messages = onoff_fit.read_messages(write_trace(tmp_path / "c.trace", events, processes=4))
    pairs = list(zip(messages.sender.tolist(), messages.receiver.tolist(), strict=True))
    assert pairs[:12] == [(r, p) for r in range(4) for p in range(4) if p != r]  # every member
    assert messages.lookups[:12].tolist() == [4] * 12  # 1024 B in 256 B packets
    assert pairs[12:] == [(0, 1), (0, 2), (1, 0), (1, 3), (2, 3), (2, 0), (3, 2), (3, 1)]  # binomial tree bits


def test_a_bad_line_names_file_line_and_field(tmp_path):
    path = write_trace(tmp_path / "bad.trace", ["0 0 10 send 1 12x 0 0"], processes=2)
    with pytest.raises(IbsecError, match=r"bad\.trace:7: field 'bytes': '12x' is not a whole number"):
        onoff_fit.read_messages(path)


def test_the_cli_reports_bad_input_without_a_traceback(tmp_path):
    path = tmp_path / "junk.trace"
    path.write_text("not a trace\n")
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", "analytic", "fit", str(path)], capture_output=True,
                          text=True)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "junk.trace" in done.stderr


def test_cli_writes_json_csv_plot_and_periods(two_sessions, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "ibsec.cli", "analytic", "fit", str(two_sessions),
                           "--gap-threshold-ms", "1", "--out", str(out), "--json"], capture_output=True, text=True,
                          check=True)
    data = json.loads(done.stdout)
    assert data["sessions"] == 2 and data["markov"]["sessions_per_card_max"] == 2
    for suffix in ("fit.json", "fit.csv", "fit.png", "on.periods", "off.periods"):
        assert (out / f"two.{suffix}").stat().st_size > 0
    assert len((out / "two.on.periods").read_text().split("\n")) == 1 + 8 + 1


def test_the_best_law_is_flagged_in_json_csv_and_the_printed_table(two_sessions, tmp_path):
    import pandas as pd

    out = tmp_path / "out"
    command = [sys.executable, "-m", "ibsec.cli", "analytic", "fit", str(two_sessions), "--gap-threshold-ms", "1"]
    data = json.loads(subprocess.run([*command, "--out", str(out), "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    table = pd.read_csv(out / "two.fit.csv")
    printed = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    for period in ("on", "off"):
        fits = data[f"{period}_fits"]
        smallest = min(fits, key=lambda family: fits[family]["ks"])
        assert data[f"best_{period}"] == smallest
        assert [family for family, fit in fits.items() if fit["best"]] == [smallest]
        rows = table[table.period == period]
        assert rows[rows.best].family.tolist() == [rows.loc[rows.ks.idxmin(), "family"]] == [smallest]
        flagged = [line.split() for line in printed.splitlines() if line.split()[:1] == [period]]
        assert [fields[1] for fields in flagged if "best" in fields] == [smallest]


def test_the_figure_draws_steps_and_lines_and_marks_the_best_law_outside_the_data(two_sessions):
    import pandas as pd

    from ibsec.output.onoff_figures import BEST_WIDTH, fit_cdfs

    result = onoff_fit.fit_trace(two_sessions, gap_threshold_ms=1.0)
    table = pd.DataFrame(result.rows())
    fig = fit_cdfs("two", result.periods.on_ms, result.periods.off_ms, table)
    for ax, period in zip(fig.axes, ("on", "off"), strict=True):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert all(line.get_marker() in ("", "None", None) for line in lines.values()), "no marker per sample"
        best = [label for label in lines if label.endswith(", best")]
        assert best == [f"{result.best(period)} (KS {table[(table.period == period) & table.best].ks.item():.3f}), "
                        "best"]
        assert lines[best[0]].get_linewidth() == BEST_WIDTH > max(
            line.get_linewidth() for label, line in lines.items() if label != best[0])
        anchor = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
        assert anchor.y1 <= 0, "the legend is under the axes, not over the data"
        sample = result.periods.on_ms if period == "on" else result.periods.off_ms
        assert ax.get_xlim() == pytest.approx((sample.min(), sample.max()))


def test_a_long_tail_is_cut_from_the_x_axis_and_said_so():
    from ibsec.output.onoff_figures import cut_note, shown_range

    body = np.linspace(1.0, 2.0, 999)
    tailed = np.append(body, 500.0)  # one outlier 250 times the rest: the axis ends at the 99th percentile
    low, high = shown_range(tailed)
    assert low == 1.0 and high == pytest.approx(np.quantile(tailed, 0.99))
    assert cut_note(tailed, high).strip() == "10 longer periods (1 %, up to 500 ms) lie beyond the axis"
    assert shown_range(body) == (1.0, 2.0) and cut_note(body, 2.0) == ""


# ---- the fits recover the law a sample was drawn from ---------------------------------------------------------

@pytest.mark.parametrize("truth", [Distribution("exp", (2.0,)), Distribution("lognormal", (-1.0, 1.5)),
                                   Distribution("weibull", (0.6, 3.0)), Distribution("hyperexp", (0.3, 0.1, 5.0))])
def test_each_family_recovers_its_own_sample(truth):
    sample = truth.sample(np.random.default_rng(7), 20_000)
    fits = onoff_fit.fit_all(sample)
    own = fits[truth.kind]
    assert own["ks"] < 0.015  # about 2 / sqrt(n)
    assert min(fits, key=lambda f: fits[f]["ks"]) in (truth.kind, "hyperexp" if truth.kind == "exp" else truth.kind)
    assert own["mean_ms"] == pytest.approx(truth.mean, rel=0.05)
    if truth.kind != "exp":
        assert fits["exp"]["ks"] > 0.05  # a non-exponential sample is told apart from the exponential


def test_otsu_splits_two_clusters():
    values = np.concatenate([np.full(100, 1.0), np.full(50, 5.0)])
    assert 2.5 <= onoff_fit.otsu_threshold(values) < 3.5  # the middle of the empty stretch
