#!/bin/sh
# Regenerates the fabric fixtures from the ibsim net files beside this
# script: for each NAME.net, ibsim simulates the fabric and OpenSM routes
# it once with each engine; what ibnetdiscover prints is kept as NAME.ibnd,
# what dump_fts prints as NAME.lft (minhop) and NAME.updn.lft (updn, from
# the root switches listed in NAME.roots if that file exists, else from
# those OpenSM detects); a torus, one with a NAME.torus-2QoS.conf, is
# routed by torus-2QoS (QoS on, as it requires) into NAME.torus-2QoS.lft
# instead of by updn. A fabric listed in FTREE_FABRICS, one OpenSM's
# ftree recognises as a fat tree, is also routed by ftree into
# NAME.ftree.lft; the script fails unless OpenSM's log says ftree, not
# its fallback minhop, configured the tables. Needs root-free Debian packages ibsim-utils,
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


# ibsim serves the fabric on a unix socket until killed; its console reads
# stdin, so give it none. Each engine gets a fresh fabric: OpenSM keeps a
# switch's programmed entry when it is still among the best ports, so a
# second engine on the same fabric would inherit the first one's choices.
start_fabric() {
	ibsim -s "$1" </dev/null >"$work/ibsim.log" 2>&1 &
	sim_pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "sim>" "$work/ibsim.log" && break
		sleep 0.5
	done
}
stop_fabric() {
	kill "$sim_pid"
	wait "$sim_pid" 2>/dev/null || true
	sim_pid=
}

# route NAME ENGINE OUT_FILE [OPENSM_ARGS...]: one OpenSM sweep with ENGINE,
# then its tables as dump_fts prints them, and the fabric as ibnetdiscover
# prints it, kept when ENGINE is minhop and else required to be the same:
# the tables name destinations by the LIDs OpenSM assigned. Each run gets
# an empty cache (OSM_CACHE_DIR, OSM_TMP_DIR, rather than /var), since
# OpenSM reuses the LIDs of the GUIDs in the cache's guid2lid file, and the
# fabrics share GUIDs. OpenSM runs in this folder, so that files
# its arguments name are relative to it and the provenance line does not
# depend on where the repository is.
# Every engine routes every HCA from every switch (minhop's tables count
# them), but now and then OpenSM's one sweep under ibsim leaves an HCA's LID
# out of every table (seen with ftree on sibling-links, about one run in
# six); such a sweep is made again, up to three times.
route() {
	name=$1 engine=$2 tables=$3
	shift 3
	for attempt in 1 2 3; do
		route_once "$name" "$engine" "$tables" "$@"
		[ "$engine" = minhop ] && return
		[ "$(grep -c 'Channel Adapter' "$out/$tables")" = "$(grep -c 'Channel Adapter' "$out/$name.lft")" ] && return
		echo "regenerate.sh: $name: OpenSM's $engine sweep left HCAs unrouted (attempt $attempt)" >&2
	done
	exit 1
}

route_once() {
	name=$1 engine=$2 tables=$3
	shift 3
	start_fabric "$here/$name.net"
	rm -f "$work/opensm.log"
	cache=$(mktemp -d -p "$work")
	(cd "$here" && OSM_CACHE_DIR="$cache" OSM_TMP_DIR="$cache" ibsim-run opensm -o -R "$engine" "$@" -f "$work/opensm.log" >"$work/opensm.out" 2>&1)
	made="made by tests/fabrics/regenerate.sh from $name.net: ibsim -s, ibsim-run opensm -o -R $engine${*:+ $*} ($versions)"
	ibsim-run ibnetdiscover 2>/dev/null | grep -v '^# Topology file: generated on' >"$work/$name.$engine.ibnd"
	if [ "$engine" = minhop ]; then
		{
			echo "# ibnetdiscover $made"
			cat "$work/$name.$engine.ibnd"
		} >"$out/$name.ibnd"
	elif ! cmp -s "$work/$name.minhop.ibnd" "$work/$name.$engine.ibnd"; then
		echo "regenerate.sh: $name: OpenSM assigned other LIDs under $engine than under minhop" >&2
		exit 1
	fi
	{
		echo "# dump_fts $made"
		ibsim-run dump_fts 2>/dev/null
	} >"$out/$tables"
	stop_fabric
}

# The fat trees OpenSM's ftree routes (missing-link it refuses: its spines
# have different numbers of down-going port groups, ERR AB0A).
FTREE_FABRICS="tapered-2to1 three-level partial-leaf sibling-links"

for net in "$here"/*.net; do
	name=$(basename "$net" .net)
	route "$name" minhop "$name.lft"
	if [ -f "$here/$name.torus-2QoS.conf" ]; then
		route "$name" torus-2QoS "$name.torus-2QoS.lft" -Q --torus_config "$name.torus-2QoS.conf"
	elif [ -f "$here/$name.roots" ]; then
		route "$name" updn "$name.updn.lft" -a "$name.roots"
	else
		route "$name" updn "$name.updn.lft"
	fi
	case " $FTREE_FABRICS " in
	*" $name "*)
		route "$name" ftree "$name.ftree.lft"
		if ! grep -q "ftree tables configured on all switches" "$work/opensm.log"; then
			echo "regenerate.sh: $name: OpenSM's ftree did not route the fabric (see its log)" >&2
			exit 1
		fi
		;;
	esac
done
