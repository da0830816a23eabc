#!/bin/sh
# Regenerates the fabric fixtures from the ibsim net files beside this
# script: for each NAME.net, ibsim simulates the fabric, OpenSM routes it
# once with minhop, and what ibnetdiscover and dump_fts print is kept as
# NAME.ibnd and NAME.lft. Needs root-free Debian packages ibsim-utils,
# opensm and infiniband-diags.
#
#   tests/fabrics/regenerate.sh [OUT_DIR]   (default: this folder)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
work=$(mktemp -d)
sim_pid=
cleanup() {
	if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

for tool in ibsim ibsim-run opensm ibnetdiscover dump_fts; do
	command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
	command -v "$tool" >/dev/null 2>&1 || { echo "regenerate.sh: $tool not found (apt-get install ibsim-utils opensm infiniband-diags)" >&2; exit 2; }
done
versions="ibsim-utils $(dpkg-query -W -f='${Version}' ibsim-utils 2>/dev/null || echo '?'), opensm $(dpkg-query -W -f='${Version}' opensm 2>/dev/null || echo '?'), infiniband-diags $(dpkg-query -W -f='${Version}' infiniband-diags 2>/dev/null || echo '?')"

# OpenSM writes its cache and temporary files here rather than /var.
export OSM_TMP_DIR="$work" OSM_CACHE_DIR="$work"

for net in "$here"/*.net; do
	name=$(basename "$net" .net)
	# ibsim serves the fabric on a unix socket until killed; its console
	# reads stdin, so give it none.
	ibsim -s "$net" </dev/null >"$work/ibsim.log" 2>&1 &
	sim_pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "sim>" "$work/ibsim.log" && break
		sleep 0.5
	done
	ibsim-run opensm -o -R minhop -f "$work/opensm.log" >"$work/opensm.out" 2>&1
	made="made by tests/fabrics/regenerate.sh from $name.net: ibsim -s, ibsim-run opensm -o -R minhop ($versions)"
	{
		echo "# ibnetdiscover $made"
		ibsim-run ibnetdiscover 2>/dev/null | grep -v '^# Topology file: generated on'
	} >"$out/$name.ibnd"
	{
		echo "# dump_fts $made"
		ibsim-run dump_fts 2>/dev/null
	} >"$out/$name.lft"
	kill "$sim_pid"
	wait "$sim_pid" 2>/dev/null || true
	sim_pid=
done
