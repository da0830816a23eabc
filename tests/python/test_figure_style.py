"""The house style of ibsec's figures (analytics/ibsec/output/figure_style.py), against what it promises."""

import matplotlib.colors as colours
import numpy as np
import pytest

from ibsec.output import figure_style as style

pytestmark = pytest.mark.unit


def test_the_palette_is_okabe_ito_with_a_marker_each():
    assert style.PALETTE[:7] == ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"]
    assert len(set(style.MARKERS)) == len(style.MARKERS) >= len(style.PALETTE)
    looks = {(s["color"], s["marker"]) for s in (style.series_style(i) for i in range(len(style.PALETTE)))}
    assert len(looks) == len(style.PALETTE)


def test_each_configuration_has_its_own_look_and_the_key_comparison_is_not_red_against_green():
    looks = [(style.config_style(name)["color"], style.config_style(name)["marker"])
             for name in ("NoSecurity", "NoSKC", "SKC", "Prefetch")]
    assert len(set(looks)) == 4
    for name in ("NoSKC", "SKC", "Prefetch"):
        red, green, blue = colours.to_rgb(style.config_style(name)["color"])
        assert not (green > 0.5 and red < 0.3 and blue < 0.3), f"{name} is pure green"
    study = ["NoSecurity", "NoSKC", "SKC-2", "SKC-4", "SKC-6", "SKC-10", "SKC-16"]
    assert len({style.config_style(name)["color"] for name in study}) == len(study)


def test_high_hit_rates_become_miss_rates_on_a_log_axis():
    fig, (high, low) = style.subplots(1, 2)
    show = style.hit_rate_axis(high, [0.98, 0.99, 0.999, 0.7])
    assert high.get_yscale() == "log" and "miss rate" in high.get_ylabel()
    assert np.allclose(show([0.98, 0.999]), [0.02, 0.001])
    assert show([1.0])[0] > 0, "a miss rate of 0 is drawn, not lost on the log axis"
    show = style.hit_rate_axis(low, [0.3, 0.6, 0.95])
    assert low.get_yscale() == "linear" and low.get_ylim() == (0, 1.02)
    assert np.allclose(show([0.3]), [0.3])


def test_a_log_scale_only_where_values_span_a_decade():
    fig, (wide, narrow) = style.subplots(1, 2)
    assert style.log_scale_if_wide(wide, [1.0, 103.0]) and wide.get_yscale() == "log"
    assert not style.log_scale_if_wide(narrow, [1.0, 9.0]) and narrow.get_yscale() == "linear"


def test_a_long_title_is_cut_at_a_word():
    short = "load sweep (paper-16.json)"
    assert style.fitted_title(short) == short
    long = "load sweep (" + ", ".join(f"nic.key{i}=value{i}" for i in range(20)) + ")"
    fitted = style.fitted_title(long)
    assert len(fitted) <= style.TITLE_CHARACTERS and fitted.endswith("…") and long.startswith(fitted[:-1])


def test_microseconds_are_written_as_such():
    assert style.MICROSECONDS == "µs"


def test_log_ticks_are_plain_numbers_with_the_twos_and_fives_between_decades():
    fig, ax = style.subplots()
    ax.plot([1, 2], [0.0008, 0.004])
    assert style.log_scale_if_wide(ax, [0.0003, 0.0008, 0.004])
    assert ax.yaxis.get_major_formatter()(0.001, 0) == "0.001"
    minor = ax.yaxis.get_minor_formatter()
    assert (minor(0.002, 0), minor(0.005, 0), minor(0.003, 0)) == ("0.002", "0.005", "")
