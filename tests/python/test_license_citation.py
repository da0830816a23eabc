"""LICENSE and CITATION.cff: present, the same licence and version everywhere, and the paper cited."""

import re

import pytest
import yaml

from conftest import REPO
from ibsec import __version__
from ibsec.compat import tomllib

pytestmark = pytest.mark.unit


def test_the_licence_is_apache_2_everywhere():
    assert "Apache License\n                           Version 2.0, January 2004" in (REPO / "LICENSE").read_text()
    project = tomllib.loads((REPO / "analytics" / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    assert yaml.safe_load((REPO / "CITATION.cff").read_text())["license"] == "Apache-2.0"


def test_citation_names_the_software_its_version_and_the_paper():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert citation["title"] and citation["authors"] and citation["message"]
    assert str(citation["version"]) == __version__
    engine_version = re.search(r"project\(ibsec VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text())
    assert engine_version and engine_version.group(1) == __version__
    paper = citation["references"][0]
    assert [a["family-names"] for a in paper["authors"]] == ["Lee", "An", "Kim"]
    assert paper["year"] == 2010 and paper["journal"] == "Journal of Parallel and Distributed Computing"
    assert paper["title"].startswith("A session key caching and prefetching scheme")
