"""Item 19: a truncated zstd trace says it is truncated, and where."""

from pathlib import Path

import pytest

from .engine import REPO, run

pytestmark = pytest.mark.unit
TRACE = REPO / "tests" / "golden" / "inputs" / "mg.trace.gz"


def test_item19_a_cut_short_zstd_trace_is_reported_with_its_byte_offset(tmp_path):
    whole = tmp_path / "mg.trace.zst"
    assert run("trace", "convert", str(TRACE), str(whole)).returncode == 0
    cut = tmp_path / "cut.trace.zst"
    cut.write_bytes(whole.read_bytes()[:2000])
    result = run("trace", "validate", str(cut))
    assert result.returncode == 2
    assert f"{cut}: cannot be decompressed: truncated zstd data: the last frame stops at byte 2000" in result.stderr


def test_item19_a_corrupt_zstd_trace_is_reported(tmp_path):
    whole = tmp_path / "mg.trace.zst"
    assert run("trace", "convert", str(TRACE), str(whole)).returncode == 0
    data = bytearray(whole.read_bytes())
    data[100:120] = bytes(20)
    bad = Path(tmp_path / "bad.trace.zst")
    bad.write_bytes(bytes(data))
    result = run("trace", "validate", str(bad))
    # Without a content checksum zstd may decode the damage into garbage text, which the checks then refuse.
    assert result.returncode == 2 and result.stderr.startswith(f"ibsec-engine: error: {bad}")
