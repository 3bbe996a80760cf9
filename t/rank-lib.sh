# What the ranking tests share: the verifier (t/rank-verify.py, networkx
# and numpy on the same links and pages TSV that wa-linkmat reads) and a
# generated graph.  Sourced after lib.sh.

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" -c 'import networkx, numpy, scipy' 2>/dev/null ||
	skip_all "needs python3-networkx, python3-numpy, python3-scipy (scripts/deps)"

# Runs the verifier as a test; its report (the L1 distance) is shown as a
# TAP comment either way.
vcheck() {	# MSG VERIFY-ARGS...
	msg=$1; shift
	out=$("$PY" "$T_DIR/rank-verify.py" "$@" 2>&1)
	t_result $? "$msg"
	printf '%s\n' "$out" | sed 's/^/#   /'
}
verify() { "$PY" "$T_DIR/rank-verify.py" "$@"; }

# Converged well below the 1e-6 the verifier allows.
TIGHT="-e 1e-13 --norm l1 --iterations 100000"
G=$TESTDATA/graphs

# gen_graph GEN-GRAPH-ARGS...: a 3000-page graph with power-law in-degree in
# sites, into $tmp/gen.links.tsv and $tmp/gen.pages.tsv.
gen_graph() {
	gen=
	for d in "$(dirname "$WA_UNIT")/scripts" "$ROOT/build/opt/scripts" "$ROOT"/build/*/scripts; do
		[ -x "$d/gen-graph" ] && { gen=$d/gen-graph; break; }
	done
	if [ -n "$gen" ]; then
		"$gen" -n 3000 -m powerlaw -S 60 "$@" -P "$tmp/gen.pages.tsv" >"$tmp/gen.links.tsv"
		t_result $? "gen-graph writes a 3000-page graph"
	else
		t_result 1 "gen-graph is built (make)"
	fi
}
