#!/bin/sh
# Memory: each tool with a memory budget
# (-m) run under a hard address-space limit (ulimit -v, which its children,
# GNU sort among them, inherit) slightly above the budget, on inputs
# larger than the budget, completes, and writes what the unlimited run
# writes.  The streaming tools, which have no -m, run under the margin
# alone on the same large inputs.
#
# The margin, 64 MiB, is the address space a tool takes beside its budget:
# its shared libraries (libcurl, libxml2, OpenSSL and the rest), its read
# buffers and a 1 MiB stack per thread (src/lib/thread.h; two threads here,
# eight in one case).  A tiny run takes 5 MiB (wa-pagerank, wa-lambda) to
# 25 MiB (wa-linkmat, wa-url) of VmPeak with -j 1 and the least -m; glibc's
# malloc arenas of the other threads, 64 MiB each, are reserved only when
# the limit leaves room, and are not needed (wa-pagerank and wa-invrank
# take none: reserved early, one left too little room for the copies of
# their vectors later, and a run died one time in three).  The least limits measured
# for the runs below were about the budget plus 20 to 35 MiB.
#
# Not under valgrind or a sanitizer build: they reserve address space of
# their own (ASan's shadow memory is terabytes), so no limit can hold.
. "$(dirname "$0")/lib.sh"
under_valgrind && skip_all "valgrind's address space is not the tool's"
under_asan && skip_all "an ASan build reserves terabytes of address space: no ulimit -v"
gen=$(script_prog gen-graph) || skip_all "gen-graph is not built (make)"
MARGIN=64
i=$tmp/in u=$tmp/unlimited l=$tmp/limited
mkdir "$i" "$u" "$l"

# limited MIB CMD...: CMD under an address-space limit of MIB MiB.
limited() {
	l_mib=$1; shift
	(ulimit -v $((l_mib * 1024)) && exec "$@")
}
# in_dir DIR CMD...: CMD with each argument @/FILE as DIR/FILE.
in_dir() {
	d_dir=$1; shift
	for d_arg; do
		shift
		case $d_arg in
		@/*) set -- "$@" "$d_dir/${d_arg#@/}" ;;
		*) set -- "$@" "$d_arg" ;;
		esac
	done
	"$@"
}
# both_ways NAME MIB UDIR LDIR CMD...: CMD, its outputs named @/FILE, run
# unlimited into UDIR, then under an address-space limit of MIB MiB into
# LDIR.
both_ways() {
	w_name=$1 w_mib=$2 w_u=$3 w_l=$4; shift 4
	ok "$w_name: unlimited" in_dir "$w_u" "$@"
	ok "$w_name: under $w_mib MiB" in_dir "$w_l" limited "$w_mib" "$@"
}
ok "the limit holds: 100 MiB cannot be had under a limit of $MARGIN MiB" \
	sh -c '! (ulimit -v $(($1 * 1024)) && exec "$2" -c "bytearray(100 << 20)") 2>/dev/null' \
	sh $MARGIN "$PY"

# The inputs: 2^16 pages and half a million links (28 MB of TSV), a
# smaller graph for wa-partition (14 MB), a history of 30000 URLs (7 MB).
"$gen" -n 2^16 -d 8 -m powerlaw -P "$i/pages.tsv" >"$i/links.tsv"
"$gen" -n 2^15 -d 8 -m powerlaw -s 2 >"$i/links.small.tsv"
"$ROOT/scripts/gen-history" 30000 >"$i/hist.tsv"
ok "the inputs are made" test "$(wc -c <"$i/links.tsv")" -gt 25000000 \
	-a "$(wc -c <"$i/links.small.tsv")" -gt 12000000 -a "$(wc -c <"$i/hist.tsv")" -gt 6000000

# wa-linkmat: 8M of budget for 28 MB of links, with two threads and the
# GNU sorts it runs (their -S within the budget).
both_ways "wa-linkmat -m 8M" $((8 + MARGIN)) "$u" "$l" \
	wa-linkmat -q -m 8M -s 64 -j 2 -p "$i/pages.tsv" -o @/g "$i/links.tsv"
is "$(diff -r "$u/g" "$l/g" 2>&1)" "" "wa-linkmat: the same graph"
# The limit bites: the default budget, 1G, does not fit it.
exits 1 "wa-linkmat with the default -m (1G) under the same limit: exit 1" \
	limited $((8 + MARGIN)) wa-linkmat -q -j 2 -p "$i/pages.tsv" -o "$l/g.1g" "$i/links.tsv"
like "$(cat "$tmp/stderr")" "^wa-linkmat: .*(out of memory|Cannot allocate memory)" \
	"  and says it is out of memory"
ok "  and leaves no graph" test ! -e "$l/g.1g"

# wa-pagerank and wa-invrank: 2M of budget for a graph of 5 MB; the
# vectors do not fit, and go to temporary files.
du -k "$u/g" >"$tmp/du"
ok "the graph is larger than 2M" test "$(cut -f1 "$tmp/du")" -gt 2048
both_ways "wa-pagerank -m 2M" $((2 + MARGIN)) "$u" "$l" \
	wa-pagerank -q -m 2M -j 2 -U @/use.tsv -b @/imp.vec -o @/imp.tsv "$u/g"
same_file "$l/imp.tsv" "$u/imp.tsv" "wa-pagerank: the same importance"
same_file "$l/use.tsv" "$u/use.tsv" "wa-pagerank: the same usefulness"
same_file "$l/imp.vec" "$u/imp.vec" "wa-pagerank: the same vector"
# Eight threads: their stacks, 1 MiB each, fit the margin too.  Another
# -j sums in another order: the run to compare with has -j 8 as well.
both_ways "wa-pagerank -m 2M -j 8" $((2 + MARGIN)) "$u" "$l" \
	wa-pagerank -q -m 2M -j 8 -o @/imp8.tsv "$u/g"
same_file "$l/imp8.tsv" "$u/imp8.tsv" "wa-pagerank -j 8: the same importance"
both_ways "wa-invrank -m 2M" $((2 + MARGIN)) "$u" "$l" \
	wa-invrank -q -m 2M -j 2 -I "$u/imp.tsv" -b @/inv.vec -o @/inv.tsv "$u/g"
same_file "$l/inv.tsv" "$u/inv.tsv" "wa-invrank: the same usefulness"
same_file "$l/inv.vec" "$u/inv.vec" "wa-invrank: the same vector"

# A graph whose vectors and URL table are far larger than the margin:
# 2^21 pages of one link each (uniform, a tenth typed xml), built in about
# 6 s.  wa-pagerank and wa-invrank hold only copies of ranges of their
# files (the vectors in temporary files, the degrees, the URL table, the
# types, the -b and --init vectors), so that -m bounds their address
# space as well: at -m 16M they run under 16 + 64 MiB, where the vectors
# of -U alone (72 bytes a page) take 144 MiB and the URL table (urls,
# urloff, urlid: 42 bytes a page) 84 MiB.  -i 3 bounds the time: the
# mappings are those of a longer run (the scores are written all the
# same).  The binaries that mapped files whole (before the views) needed,
# at 2^21 pages and -m 16M -j 2, these least ulimit -v (MiB, found by
# bisection), and reached these VmPeak (MiB, sampled from /proc/PID/status
# unlimited: glibc's malloc arena of the second thread, reserved when there
# is room, makes it vary by some 40 MiB between runs) and peak RSS (MiB,
# /usr/bin/time %M):
#   wa-pagerank -U use.tsv -b imp.vec       least 142  VmPeak 205-246  RSS 39
#   wa-pagerank --jacobi                    least 109  VmPeak 168-197  RSS 23
#   wa-pagerank -E e.tsv --init imp.vec     least 120  VmPeak 215      RSS 86
#   wa-pagerank -E e.tsv --init imp.tsv     least 120  VmPeak 215-231  RSS 86
#   wa-invrank -I imp.tsv -b inv.vec        least 134  VmPeak 197      RSS 72
#   wa-invrank --transpose                  least 115  VmPeak 181      RSS 31
# so every limited run below failed with them, exit 1: wa-pagerank -U
# with "/tmp: cannot map a temporary file: Cannot allocate memory", the
# others with "GRAPH/urls: cannot map: Cannot allocate memory" (the URL
# table, mapped whole to write the scores).
BUDGET=16
big=$tmp/big
mkdir "$big" "$big/u" "$big/l"
# (the pages first: wa-linkmat reads -p before the links)
"$gen" -n 2^21 -d 1 -f none -P "$big/pages.tsv" &&
	"$gen" -n 2^21 -d 1 | wa-linkmat -q -j 2 -p "$big/pages.tsv" -o "$big/g"
ok "the large graph is made" test -s "$big/g/urls"
# The test bites only if the whole files do not fit the limit.
big_urls=$(cat "$big/g/urls" "$big/g/urloff" "$big/g/urlid" | wc -c)
ok "its URL table ($((big_urls >> 20)) MiB) alone is larger than $BUDGET + $MARGIN MiB" \
	test "$big_urls" -gt $(((BUDGET + MARGIN) << 20))
ok "its URL table and the vectors of -U are more than twice $BUDGET + $MARGIN MiB" \
	test $((big_urls + 72 * (1 << 21))) -gt $((2 * (BUDGET + MARGIN) << 20))
# The personalisation: 4096 pages of the graph, weight 1, sorted by URL.
awk -F '\t' 'NR % 512 == 1 { print $1 "\t1" }' "$big/pages.tsv" | sort -t "$(printf '\t')" -k1,1 \
	>"$big/e.tsv"
is "$(wc -l <"$big/e.tsv" | tr -d ' ')" 4096 "the personalisation has 4096 pages"
rm "$big/pages.tsv"

# big_rank NAME OUT... -- TOOL ARGS...: TOOL -q -m BUDGET -j 2 ARGS GRAPH,
# unlimited in $big/u, then under BUDGET + MARGIN in $big/l (ARGS name
# their outputs as @/FILE), the outputs OUT... compared.
big_rank() {
	b_name=$1; shift
	b_outs=
	while [ "$1" != -- ]; do b_outs="$b_outs $1"; shift; done
	shift
	b_tool=$1; shift
	both_ways "$b_name -m ${BUDGET}M" $((BUDGET + MARGIN)) "$big/u" "$big/l" \
		"$b_tool" -q -m ${BUDGET}M -j 2 "$@" "$big/g"
	for b_o in $b_outs; do
		same_file "$big/l/$b_o" "$big/u/$b_o" "  the same $b_o"
	done
}
# Gauss-Seidel with usefulness (by the slices: propagation blocking is
# for importance alone), the vector written with -b.
big_rank "wa-pagerank -U" imp.tsv use.tsv imp.vec -- wa-pagerank -i 3 \
	-U @/use.tsv -b @/imp.vec -o @/imp.tsv
# Jacobi: the slice engine, which reads x at random in every slice.
big_rank "wa-pagerank --jacobi" jac.tsv -- wa-pagerank -i 3 --jacobi -o @/jac.tsv
rm -f "$big"/[ul]/jac.tsv
# Gauss-Seidel importance by propagation blocking, in temporary files,
# from a personalisation and a start vector, binary and TSV (both the
# unlimited run's).
big_rank "wa-pagerank -E --init VEC" pv.tsv -- wa-pagerank -i 3 -E "$big/e.tsv" \
	--init "$big/u/imp.vec" -o @/pv.tsv
rm -f "$big"/[ul]/pv.tsv
big_rank "wa-pagerank -E --init TSV" pt.tsv -- wa-pagerank -i 3 -E "$big/e.tsv" \
	--init "$big/u/imp.tsv" -o @/pt.tsv
rm -f "$big"/[ul]/pt.tsv
# One Jacobi step of half the slices, written a chunk at a time.
big_rank "wa-pagerank --slice 1/2" part.vec -- wa-pagerank --slice 1/2 --init "$big/u/imp.vec" \
	-b @/part.vec
rm -f "$big"/[ul]/part.vec
big_rank "wa-invrank -I" inv.tsv inv.vec -- wa-invrank --iterations 3 -I "$big/u/imp.tsv" \
	-b @/inv.vec -o @/inv.tsv
rm -f "$big"/[ul]/inv.*
big_rank "wa-invrank --transpose" invt.tsv -- wa-invrank --iterations 3 --transpose -o @/invt.tsv
# wa-linkmat's dumps of the same graph: the URL table in order, the
# per-node files and the URLs of the links by id.
for d in dump dump-nodes; do
	both_ways "wa-linkmat --$d -m ${BUDGET}M" $((BUDGET + MARGIN)) "$big/u" "$big/l" \
		sh -c 'wa-linkmat -m "$1" --"$2" "$3" >"$4"' sh ${BUDGET}M $d "$big/g" @/$d
	same_file "$big/l/$d" "$big/u/$d" "  the same $d"
done
is "$(wc -l <"$big/u/dump-nodes" | tr -d ' ')" $((1 << 21)) "  a row for every page"
rm -rf "$big"

# wa-partition: -m is its sort's; its tree of the URLs is its own.
both_ways "wa-partition -m 4M" $((4 + MARGIN)) "$u" "$l" \
	wa-partition -q -m 4M -n 4 -o @/rules.tsv "$i/links.small.tsv"
same_file "$l/rules.tsv" "$u/rules.tsv" "wa-partition: the same rules"

# The streaming tools, under the margin alone.
both_ways "wa-url" $MARGIN "$u" "$l" \
	sh -c 'wa-url -q -a surt "$1" >"$2"' sh "$i/links.tsv" @/url.tsv
same_file "$l/url.tsv" "$u/url.tsv" "wa-url: the same rows"
both_ways "wa-lambda" $MARGIN "$u" "$l" wa-lambda -q -o @/lambda.tsv "$i/hist.tsv"
same_file "$l/lambda.tsv" "$u/lambda.tsv" "wa-lambda: the same rates"

done_testing
