# What the ranking tests share: the verifier (t/rank-verify.py, networkx
# and numpy on the same links and pages TSV that wa-linkmat reads) and a
# generated graph.  Sourced after lib.sh.

needs_python networkx numpy scipy

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
	if gen=$(script_prog gen-graph); then
		"$gen" -n 3000 -m powerlaw -S 60 "$@" -P "$tmp/gen.pages.tsv" >"$tmp/gen.links.tsv"
		t_result $? "gen-graph writes a 3000-page graph"
	else
		t_result 1 "gen-graph is built (make)"
	fi
}

# test_graphs: the graphs both tools are checked on.  Under valgrind the
# figures are the same; four graphs take every path of the code (dangling
# pages, disconnected parts, XML pages, a generated graph of two blocks).
test_graphs() {
	if under_valgrind; then
		echo dangling disconnected xml gen
	else
		echo dangling sink cycles disconnected selflinks star chain xml gen
	fi
}

# build_test_graph NAME: sets $links and $pages (of testdata/graphs, or the
# generated graph for gen), $g, $g7 and the output prefix $o, and builds
# $g in one slice and $g7 in seven.
build_test_graph() {
	if [ "$1" = gen ]; then
		links=$tmp/gen.links.tsv pages=$tmp/gen.pages.tsv
	else
		links=$G/rank-$1.links.tsv pages=$G/rank-$1.pages.tsv
	fi
	g=$tmp/$1.g g7=$tmp/$1.g7 o=$tmp/$1
	ok "$1: wa-linkmat builds the graph" wa-linkmat -q -p "$pages" -o "$g" "$links"
	ok "$1: and cut in 7 slices" wa-linkmat -q -s 7 -p "$pages" -o "$g7" "$links"
}

# threads_and_vector TOOL: on the graph of the current loop, -j 1 and -j 2
# agree to round-off, -j 2 twice gives the same bytes, and the -b vector
# holds the scores of the TSV bit for bit.
threads_and_vector() {
	ok "$name: -j 1" $1 -q $TIGHT -j 1 -o "$o.j1" "$g"
	ok "$name: -j 2" $1 -q $TIGHT -j 2 -o "$o.j2" "$g"
	ok "$name: -j 2 again" $1 -q $TIGHT -j 2 -o "$o.j2b" "$g"
	vcheck "$name: -j 1 and -j 2 agree to round-off" diff "$o.j2" "$o.j1" --tol 1e-12
	same_file "$o.j2b" "$o.j2" "$name: -j 2 twice gives the same bytes"
	ok "$name: -b writes the vector" $1 -q $TIGHT -o "$o.b.tsv" -b "$o.vec" "$g"
	vcheck "$name: the vector holds the scores of the TSV, bit for bit" vector "$o.vec" "$o.b.tsv"
}

# modes TOOL VERIFIER-MODE: the checks both tools share, on the graph of the
# current loop ($name, $links, $pages, $g of one slice, $g7 of 7, output
# prefix $o): Gauss-Seidel and Jacobi against the verifier and each other,
# 7 slices against one, and the smallest -m it takes, which reads the
# matrix from disk every pass (searched for outside valgrind: its twenty
# steps there took a minute and a half of the suite's time; the -m found
# runs under it).
modes() {
	tool=$1 mode=$2
	ok "$name: Gauss-Seidel" $tool -q $TIGHT -o "$o.gs" "$g"
	vcheck "$name: equals the verifier ($mode)" $mode "$links" "$pages" "$o.gs"
	ok "$name: Jacobi" $tool -q $TIGHT --jacobi -o "$o.jac" "$g"
	vcheck "$name: Jacobi equals the verifier" $mode "$links" "$pages" "$o.jac"
	vcheck "$name: Jacobi and Gauss-Seidel reach the same vector" diff "$o.jac" "$o.gs" --tol 1e-9
	ok "$name: 7 slices, Gauss-Seidel" $tool -q $TIGHT -o "$o.gs7" "$g7"
	vcheck "$name: 7 slices agree with one" diff "$o.gs7" "$o.gs" --tol 1e-9
	ok "$name: 7 slices, Jacobi" $tool -q $TIGHT --jacobi -o "$o.jac7" "$g7"
	vcheck "$name: 7 slices agree with one, Jacobi" diff "$o.jac7" "$o.gs" --tol 1e-9
	lo=0 hi=1048576 search=$(unwrapped $tool)
	while [ $((hi - lo)) -gt 1 ]; do
		m=$(((lo + hi) / 2))
		if "$search" -q -m $m --iterations 1 -o "$o.m" "$g7" 2>/dev/null; then hi=$m; else lo=$m; fi
	done
	ok "$name: the smallest -m it takes ($hi bytes)" $tool -q -v $TIGHT -m $hi -o "$o.m" "$g7"
	info=$(grep -v ': iteration' "$tmp/stderr" | head -1)
	echo "#   $info"
	like "$info" "disk" "$name: and reads the matrix from disk each pass"
	vcheck "$name: -m $hi agrees with the default" diff "$o.m" "$o.gs" --tol 1e-9
}

# Damaged graphs, as copies of $tmp/xml.g7 in $tmp/bad.g: $RANK_TOOL must
# stop with a message naming the file, and write no ranking.
damaged() {	# MSG FILE-PATTERN GRAPH
	rm -f "$tmp/bad.out"
	exits 1 "$1: exit 1" $RANK_TOOL -q -o "$tmp/bad.out" "$3"
	like "$(cat "$tmp/stderr")" "^$RANK_TOOL: .*$2" "$1: the message names $2"
	ok "$1: no ranking written" test ! -e "$tmp/bad.out"
}
fresh() { rm -rf "$tmp/bad.g" && cp -R "$tmp/xml.g7" "$tmp/bad.g"; }
