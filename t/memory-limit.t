#!/bin/sh
# Memory (issue 8, "Faults at every step"): each tool with a memory budget
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
# the limit leaves room, and are not needed.  The least limits measured
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
ok "wa-linkmat -m 8M: unlimited" \
	wa-linkmat -q -m 8M -j 2 -p "$i/pages.tsv" -o "$u/g" "$i/links.tsv"
ok "wa-linkmat -m 8M: under $((8 + MARGIN)) MiB of address space" \
	limited $((8 + MARGIN)) wa-linkmat -q -m 8M -j 2 -p "$i/pages.tsv" -o "$l/g" "$i/links.tsv"
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
ok "wa-pagerank -m 2M: unlimited" \
	wa-pagerank -q -m 2M -j 2 -U "$u/use.tsv" -b "$u/imp.vec" -o "$u/imp.tsv" "$u/g"
ok "wa-pagerank -m 2M: under $((2 + MARGIN)) MiB" \
	limited $((2 + MARGIN)) wa-pagerank -q -m 2M -j 2 -U "$l/use.tsv" -b "$l/imp.vec" \
	-o "$l/imp.tsv" "$u/g"
same_file "$l/imp.tsv" "$u/imp.tsv" "wa-pagerank: the same importance"
same_file "$l/use.tsv" "$u/use.tsv" "wa-pagerank: the same usefulness"
same_file "$l/imp.vec" "$u/imp.vec" "wa-pagerank: the same vector"
# Eight threads: their stacks, 1 MiB each, fit the margin too.  Another
# -j sums in another order: the run to compare with has -j 8 as well.
ok "wa-pagerank -m 2M -j 8: unlimited" wa-pagerank -q -m 2M -j 8 -o "$u/imp8.tsv" "$u/g"
ok "wa-pagerank -m 2M -j 8: under $((2 + MARGIN)) MiB" \
	limited $((2 + MARGIN)) wa-pagerank -q -m 2M -j 8 -o "$l/imp8.tsv" "$u/g"
same_file "$l/imp8.tsv" "$u/imp8.tsv" "wa-pagerank -j 8: the same importance"
ok "wa-invrank -m 2M: unlimited" \
	wa-invrank -q -m 2M -j 2 -i "$u/imp.tsv" -b "$u/inv.vec" -o "$u/inv.tsv" "$u/g"
ok "wa-invrank -m 2M: under $((2 + MARGIN)) MiB" \
	limited $((2 + MARGIN)) wa-invrank -q -m 2M -j 2 -i "$u/imp.tsv" -b "$l/inv.vec" \
	-o "$l/inv.tsv" "$u/g"
same_file "$l/inv.tsv" "$u/inv.tsv" "wa-invrank: the same usefulness"
same_file "$l/inv.vec" "$u/inv.vec" "wa-invrank: the same vector"

# wa-partition: -m is its sort's; its tree of the URLs is its own.
ok "wa-partition -m 4M: unlimited" wa-partition -q -m 4M -k 4 -o "$u/rules.tsv" "$i/links.small.tsv"
ok "wa-partition -m 4M: under $((4 + MARGIN)) MiB" \
	limited $((4 + MARGIN)) wa-partition -q -m 4M -k 4 -o "$l/rules.tsv" "$i/links.small.tsv"
same_file "$l/rules.tsv" "$u/rules.tsv" "wa-partition: the same rules"

# The streaming tools, under the margin alone.
ok "wa-url: unlimited" sh -c 'wa-url -q -a surt "$1" >"$2"' sh "$i/links.tsv" "$u/url.tsv"
ok "wa-url: under $MARGIN MiB" \
	limited $MARGIN sh -c 'wa-url -q -a surt "$1" >"$2"' sh "$i/links.tsv" "$l/url.tsv"
same_file "$l/url.tsv" "$u/url.tsv" "wa-url: the same rows"
ok "wa-lambda: unlimited" wa-lambda -q -o "$u/lambda.tsv" "$i/hist.tsv"
ok "wa-lambda: under $MARGIN MiB" limited $MARGIN wa-lambda -q -o "$l/lambda.tsv" "$i/hist.tsv"
same_file "$l/lambda.tsv" "$u/lambda.tsv" "wa-lambda: the same rates"

done_testing
