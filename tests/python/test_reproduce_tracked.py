"""`ibsec reproduce` into a folder of files git tracks (the committed results/) stops before running anything,
unless --update-results is given (docs/reproducing.md)."""

import subprocess
import sys
from pathlib import Path

import pytest

from ibsec.output.tracked import tracked_files
from ibsec.paper.reproduce import QUICK, Context, steps


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A git checkout whose results/ holds two committed tables, and an ignored out/."""
    git(tmp_path, "init", "-q")
    (tmp_path / "results").mkdir()
    for name in ("REPORT.md", "committed.csv"):
        (tmp_path / "results" / name).write_text(f"committed {name}\n")
    (tmp_path / ".gitignore").write_text("/out/\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "results")
    return tmp_path


def every_step() -> list[str]:
    """--skip for every step of the quick plan: REPORT.md alone is written, in seconds."""
    names = [step.name for step in steps(Context(Path("x"), Path("x"), Path("x"), QUICK, 1, True, []))]
    return [word for name in names for word in ("--skip", name)]


def reproduce(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ibsec.cli", "reproduce", "--quick", "--quiet", "--jobs", "1",
                           *every_step(), *args], capture_output=True, text=True, check=False, cwd=folder)


@pytest.mark.unit
def test_tracked_files_are_listed_relative_to_the_current_folder(checkout, monkeypatch):
    monkeypatch.chdir(checkout)
    assert tracked_files("results") == ["results/REPORT.md", "results/committed.csv"]
    assert tracked_files("out/reproduce") == []  # not made yet, and nothing committed there


@pytest.mark.unit
def test_no_checkout_tracks_nothing(tmp_path):
    (tmp_path / "results").mkdir()
    assert tracked_files(tmp_path / "results") == []


@pytest.mark.unit
def test_refuses_a_folder_of_tracked_files_before_running_anything(checkout, engine):
    done = reproduce(checkout, "--out", "results")
    assert done.returncode == 2
    assert "invalid '--out': results holds 2 files tracked by git (results/REPORT.md, results/committed.csv)" \
        in done.stderr
    assert "--update-results" in done.stderr and "[1/" not in done.stdout  # no step started
    assert (checkout / "results" / "REPORT.md").read_text() == "committed REPORT.md\n"
    assert sorted(p.name for p in (checkout / "results").iterdir()) == ["REPORT.md", "committed.csv"]


@pytest.mark.model
def test_update_results_rewrites_them(checkout, engine):
    done = reproduce(checkout, "--out", "results", "--update-results")
    assert done.returncode == 0, done.stderr
    assert (checkout / "results" / "REPORT.md").read_text() != "committed REPORT.md\n"


@pytest.mark.model
def test_an_untracked_folder_needs_no_flag(checkout, engine):
    done = reproduce(checkout, "--out", "out/reproduce")
    assert done.returncode == 0, done.stderr
    assert (checkout / "out" / "reproduce" / "REPORT.md").is_file()
