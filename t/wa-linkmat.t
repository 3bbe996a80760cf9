#!/bin/sh
# wa-linkmat: the graph directory from links, checked against graphs made by
# hand (ids in SURT order, degrees, types, rejected rows), the same files
# whatever the input order, compression, threads or memory budget, update
# mode against a full rebuild, and a GRAPH that is always whole.  --dump
# reads the matrix through graph.c, which checks every slice.
. "$(dirname "$0")/lib.sh"

tab=$(printf '\t')
G=$TESTDATA/graphs
links=$G/linkmat-sites.links.tsv
pages=$G/linkmat-sites.pages.tsv

# Every file of two graph directories, byte for byte.
same_graph() {	# A B
	[ "$(ls "$1")" = "$(ls "$2")" ] || return 1
	for f in "$1"/*; do cmp -s "$f" "$2/${f##*/}" || return 1; done
}

# Hidden directories left beside a graph.
leftovers() { ls -A "$1" | grep -E '^\.' ; }

exits 2 "no -o is a usage error" wa-linkmat "$links"
like "$(cat "$tmp/stderr")" '-o GRAPH is required' "which says what is missing"
exits 2 "-m below the floor is a usage error" wa-linkmat -m 1K -o "$tmp/x" "$links"
exits 2 "--dump takes nothing else" wa-linkmat --dump "$tmp/x" -o "$tmp/y"
exits 0 "-h" wa-linkmat -h
like "$(cat "$tmp/stdout")" '^usage: wa-linkmat' "prints the usage"

# The hand-made graph: a star (www), a chain (/ -> /a -> https /a -> data),
# cycles, a disconnected pair (z.example), a node with only a self link
# (:8080), a page with no links at all (lonely), dangling targets, self
# links, duplicates (one only after canonicalisation), and bad rows.
exits 0 "the hand-made graph builds" wa-linkmat -p "$pages" -o "$tmp/g" "$links"
like "$(cat "$tmp/stderr")" "linkmat-sites.pages.tsv:11: unknown page type 'bogus'" \
	"a bad page type is reported with its file and line"
like "$(cat "$tmp/stderr")" 'linkmat-sites.links.tsv:23: source: unsupported scheme: mailto:' \
	"a URL that cannot be canonical is reported with its line"
like "$(cat "$tmp/stderr")" 'linkmat-sites.links.tsv:24: not a URL in column 2 \(no scheme\): relative/path' \
	"in either column"
like "$(cat "$tmp/stderr")" 'linkmat-sites.links.tsv:25: found 1 column, expected at least 2' \
	"a row without a destination too"
like "$(cat "$tmp/stderr")" 'linkmat-sites.links.tsv: 3 lines rejected' "and counted"
like "$(cat "$tmp/stderr")" \
	'14 nodes, 16 links, 1 slices, .*34 rows: 3 duplicate and 3 self links dropped, 4 rejected' \
	"the summary counts nodes, links, duplicates, self links and rejected rows"

cat >"$tmp/want" <<EOF
http://a.example.net/p?q=1${tab}http://example.org/
http://blog.example.com/x${tab}http://www.example.com/
http://example.com/${tab}http://example.com/a
http://example.com/a${tab}https://example.com/a
http://example.org/${tab}http://a.example.net/p?q=1
http://example.org/${tab}http://example.org/feed.rss
http://www.example.com/${tab}http://127.0.0.1:8080/
http://www.example.com/${tab}http://a.example.net/p?q=1
http://www.example.com/${tab}http://blog.example.com/x
http://www.example.com/${tab}http://example.com/
http://www.example.com/${tab}http://example.com/a
http://www.example.com/${tab}http://example.org/
http://www.example.com/${tab}https://example.com/a
http://z.example/${tab}http://z.example/m
http://z.example/m${tab}http://z.example/
https://example.com/a${tab}http://example.com/data.XML?x=1
EOF
wa-linkmat --dump "$tmp/g" >"$tmp/dump" 2>"$tmp/stderr"
same_file "$tmp/dump" "$tmp/want" "--dump: every distinct link once, no self link, sorted"

# url, type, outdeg, indeg, id.  Types: from the pages (html beats error),
# XML suspects by suffix (.XML before a query, .rss) or by a +xml link, '-'
# for the rest, fetched or not.
cat >"$tmp/want" <<EOF
http://127.0.0.1:8080/${tab}-${tab}0${tab}1${tab}0
http://a.example.net/p?q=1${tab}xml-suspect${tab}1${tab}2${tab}10
http://blog.example.com/x${tab}html${tab}1${tab}1${tab}6
http://example.com/${tab}html${tab}1${tab}1${tab}1
http://example.com/a${tab}xml${tab}1${tab}2${tab}2
http://example.com/data.XML?x=1${tab}xml-suspect${tab}0${tab}1${tab}4
http://example.com:8080/${tab}-${tab}0${tab}0${tab}5
http://example.org/${tab}html${tab}2${tab}2${tab}11
http://example.org/feed.rss${tab}xml-suspect${tab}0${tab}1${tab}12
http://lonely.example.org/${tab}xml${tab}0${tab}0${tab}13
http://www.example.com/${tab}html${tab}7${tab}1${tab}7
http://z.example/${tab}dtd${tab}1${tab}1${tab}8
http://z.example/m${tab}-${tab}1${tab}1${tab}9
https://example.com/a${tab}other${tab}1${tab}2${tab}3
EOF
wa-linkmat --dump-nodes "$tmp/g" >"$tmp/nodes" 2>"$tmp/stderr"
same_file "$tmp/nodes" "$tmp/want" "--dump-nodes: types and degrees of every node, in URL order"

# Ids follow (SURT key, URL): the IP first, then com,example) with its
# port after its paths and https after http, com,example,blog before
# com,example,www, then example,z, net, org.
cat >"$tmp/want" <<'EOF'
http://127.0.0.1:8080/
http://example.com/
http://example.com/a
https://example.com/a
http://example.com/data.XML?x=1
http://example.com:8080/
http://blog.example.com/x
http://www.example.com/
http://z.example/
http://z.example/m
http://a.example.net/p?q=1
http://example.org/
http://example.org/feed.rss
http://lonely.example.org/
EOF
sort -t "$tab" -k5,5n "$tmp/nodes" | cut -f1 >"$tmp/order"
same_file "$tmp/order" "$tmp/want" "ids are in SURT order"

# Slices: equal id ranges [k*N/S, (k+1)*N/S), in the manifest and the
# slice headers; the links are the same however the matrix is cut.
manifest_bounds() { od -A n -t u8 -j 64 -N $((8 * ($2 + 1))) -v "$1/manifest" | xargs; }
header() { od -A n -t u8 -j "$2" -N 8 "$1" | xargs; }
exits 0 "-s 3" wa-linkmat -q -s 3 -p "$pages" -o "$tmp/s3" "$links"
is "$(manifest_bounds "$tmp/s3" 3)" "0 4 9 14" "the manifest's bounds cut 14 ids in 3 equal slices"
is "$(header "$tmp/s3/manifest" 16) $(header "$tmp/s3/manifest" 32) $(header "$tmp/s3/manifest" 40)" \
	"14 16 3" "its header counts nodes, links and slices"
is "$(header "$tmp/s3/slice-0001" 32) $(header "$tmp/s3/slice-0001" 40)" "4 9" \
	"a slice's header has its bounds"
wa-linkmat --dump "$tmp/s3" >"$tmp/dump3" 2>"$tmp/stderr"
same_file "$tmp/dump3" "$tmp/dump" "the links of 3 slices are those of 1"
exits 0 "more slices than nodes" wa-linkmat -q -s 20 -p "$pages" -o "$tmp/s20" "$links"
wa-linkmat --dump "$tmp/s20" >"$tmp/dump20" 2>"$tmp/stderr"
same_file "$tmp/dump20" "$tmp/dump" "some slices are empty, none is lost"

# The same graph, byte for byte, from any order, gzip, or stdin.
awk 'BEGIN { srand(5) } { print rand() "\t" $0 }' "$links" | sort -n | cut -f2- \
	>"$tmp/shuffled"
gzip -c "$links" >"$tmp/links.gz"
wa-linkmat -q -p "$pages" -o "$tmp/shuf" "$tmp/shuffled" 2>/dev/null
ok "shuffled input gives the same files" same_graph "$tmp/shuf" "$tmp/g"
wa-linkmat -q -p "$pages" -o "$tmp/gz" "$tmp/links.gz" 2>/dev/null
ok "gzip input gives the same files" same_graph "$tmp/gz" "$tmp/g"
wa-linkmat -q -p "$pages" -o "$tmp/stdin" <"$links" 2>/dev/null
ok "stdin gives the same files" same_graph "$tmp/stdin" "$tmp/g"
is "$(leftovers "$tmp")" "" "no temporary directory is left beside the graphs"

# A generated graph large enough for a 64K budget to spill every sort,
# with a star whose record outgrows the encoder's buffer.  Under valgrind,
# a third of it spills the same sorts.
random_links=30000 star=300000
under_valgrind && random_links=10000 star=100000
awk -v random_links=$random_links -v star=$star 'BEGIN { srand(3)
	for (i = 0; i < random_links; i++) {
		s = int(2000 * rand() ^ 2); d = int(2000 * rand() ^ 2)
		printf "http://s%d.example/p%d\thttp://s%d.example/p%d\n", s % 37, s, d % 37, d
	}
	for (i = 0; i < star; i++)
		printf "http://star.example/\thttp://star.example/t%d\n", i
}' >"$tmp/gen.tsv"
gen_nodes=$(tr '\t' '\n' <"$tmp/gen.tsv" | sort -u | wc -l)
exits 0 "a $((random_links + star))-link graph with -m 64K" \
	wa-linkmat -v -m 64K -j 1 -s 2 -o "$tmp/tiny" "$tmp/gen.tsv"
like "$(grep 'links by source' "$tmp/stderr")" 'runs' "spills its sorts"
like "$(grep 'join' "$tmp/stderr")" 'join by destination' "joins the links by merges"
exits 0 "the same with -m 64K and threads" wa-linkmat -q -m 64K -j 2 -s 2 -o "$tmp/tiny2" \
	"$tmp/gen.tsv"
exits 0 "the same with the default budget" wa-linkmat -v -s 2 -o "$tmp/large" "$tmp/gen.tsv"
like "$(grep 'join' "$tmp/stderr")" 'join in a table' "which joins them in a table"
ok "a small budget gives the same files as a large one" same_graph "$tmp/tiny" "$tmp/large"
ok "threads give the same files" same_graph "$tmp/tiny2" "$tmp/large"
awk -F "$tab" '$1 != $2 { print $1 FS $2 }' "$tmp/gen.tsv" | sort -u >"$tmp/want"
wa-linkmat --dump "$tmp/tiny" >"$tmp/dump" 2>"$tmp/stderr"
same_file "$tmp/dump" "$tmp/want" "--dump is sort -u of the input without its self links"
is "$(wa-linkmat --dump-nodes "$tmp/tiny" | grep -c "^http://star.example/$tab")" 1 \
	"the star is one node"
is "$(wa-linkmat --dump-nodes "$tmp/tiny" | grep "^http://star.example/$tab" | cut -f3)" \
	$star "with its $star out-links"

# The memory of recent URLs: a URL goes to sort(1) once while its facts
# are remembered, again once they are forgotten; the graph is the same.
awk 'BEGIN { for (r = 0; r < 2; r++) for (i = 0; i < 20000; i++)
	printf "http://s.example/\thttp://t%d.example/\n", i }' >"$tmp/repeats.tsv"
# On one thread the count is exact; threads that meet a URL at the same
# moment may both send it, which sort(1) merges.
exits 0 "20000 links given twice" wa-linkmat -v -j 1 -s 64 -o "$tmp/rep1" "$tmp/repeats.tsv"
like "$(cat "$tmp/stderr")" 'node lines: 20001,' "send each of the 20001 URLs to sort once"
like "$(cat "$tmp/stderr")" '20000 duplicate' "and count the second 20000 links as duplicates"
like "$(cat "$tmp/stderr")" "facts were recent \\(1 MB\\)" \
	"whose memory is no larger than the 1.6 MB of the links file"
exits 0 "the same from stdin" wa-linkmat -v -s 64 -o "$tmp/rep3" <"$tmp/repeats.tsv"
like "$(cat "$tmp/stderr")" "facts were recent \\(12[0-9] MB\\)" \
	"whose size is not known: an eighth of the budget for the memory"
ok "to the same files" same_graph "$tmp/rep1" "$tmp/rep3"
exits 0 "the same on two threads" wa-linkmat -v -j 2 -s 64 -o "$tmp/rep4" "$tmp/repeats.tsv"
n=$(sed -n 's/.*node lines: \([0-9]*\),.*/\1/p' "$tmp/stderr")
ok "which send each URL at least once ($n lines)" test "$n" -ge 20001
ok "to the same files" same_graph "$tmp/rep1" "$tmp/rep4"
exits 0 "the same with -m 64K" wa-linkmat -v -m 64K -s 64 -o "$tmp/rep2" "$tmp/repeats.tsv"
n=$(sed -n 's/.*node lines: \([0-9]*\),.*/\1/p' "$tmp/stderr")
ok "whose memory of 2048 URLs sends most of them again ($n lines)" test "$n" -gt 30000
ok "to the same files" same_graph "$tmp/rep1" "$tmp/rep2"

# Update mode, by hand: www.example.com is fetched again with new links,
# example.com fetched without links loses its own, example.org/feed.rss is
# now known as XML, q.example is new; the other pages keep their links,
# and every old node stays.
exits 0 "-u: an update" wa-linkmat -p "$G/linkmat-cycle2.pages.tsv" -u "$tmp/g" -o "$tmp/u" \
	"$G/linkmat-cycle2.links.tsv"
like "$(cat "$tmp/stderr")" '16 nodes, 11 links \(3 new, 8 kept, 8 replaced\)' \
	"the summary counts new, kept and replaced links"
cat >"$tmp/want" <<EOF
http://a.example.net/p?q=1${tab}http://example.org/
http://blog.example.com/x${tab}http://www.example.com/
http://example.com/a${tab}https://example.com/a
http://example.org/${tab}http://a.example.net/p?q=1
http://example.org/${tab}http://example.org/feed.rss
http://q.example/${tab}http://example.org/
http://www.example.com/${tab}http://example.com/
http://www.example.com/${tab}http://example.com/new
http://z.example/${tab}http://z.example/m
http://z.example/m${tab}http://z.example/
https://example.com/a${tab}http://example.com/data.XML?x=1
EOF
wa-linkmat --dump "$tmp/u" >"$tmp/dump" 2>"$tmp/stderr"
same_file "$tmp/dump" "$tmp/want" "-u: the fetched pages' links replaced, the others kept"
cat >"$tmp/want" <<EOF
http://127.0.0.1:8080/${tab}-${tab}0${tab}0${tab}0
http://a.example.net/p?q=1${tab}xml-suspect${tab}1${tab}1${tab}12
http://blog.example.com/x${tab}html${tab}1${tab}0${tab}7
http://example.com/${tab}html${tab}0${tab}1${tab}1
http://example.com/a${tab}xml${tab}1${tab}0${tab}2
http://example.com/data.XML?x=1${tab}xml-suspect${tab}0${tab}1${tab}4
http://example.com/new${tab}-${tab}0${tab}1${tab}5
http://example.com:8080/${tab}-${tab}0${tab}0${tab}6
http://example.org/${tab}html${tab}2${tab}2${tab}13
http://example.org/feed.rss${tab}xml${tab}0${tab}1${tab}14
http://lonely.example.org/${tab}xml${tab}0${tab}0${tab}15
http://q.example/${tab}xml${tab}1${tab}0${tab}9
http://www.example.com/${tab}html${tab}2${tab}1${tab}8
http://z.example/${tab}dtd${tab}1${tab}1${tab}10
http://z.example/m${tab}-${tab}1${tab}1${tab}11
https://example.com/a${tab}other${tab}1${tab}1${tab}3
EOF
wa-linkmat --dump-nodes "$tmp/u" >"$tmp/nodes" 2>"$tmp/stderr"
same_file "$tmp/nodes" "$tmp/want" "-u: old nodes stay, new ones get ids in SURT order, types updated"
cp -R "$tmp/g" "$tmp/inplace"
exits 0 "-u GRAPH -o GRAPH updates in place" wa-linkmat -q -p "$G/linkmat-cycle2.pages.tsv" \
	-u "$tmp/inplace" -o "$tmp/inplace" "$G/linkmat-cycle2.links.tsv"
ok "to the same files" same_graph "$tmp/inplace" "$tmp/u"
is "$(leftovers "$tmp")" "" "and leaves no temporary directory"

# Update mode against a full rebuild from the old links minus those of the
# pages fetched this cycle, plus the new ones: same links, same degrees.
awk -F "$tab" 'BEGIN { srand(11) } NR % 3 == 0 { print $1 "\thtml" }' "$tmp/gen.tsv" |
	head -300 >"$tmp/p2"
awk 'BEGIN { srand(12)
	for (i = 0; i < 5000; i++) {
		s = int(2500 * rand() ^ 2); d = int(2500 * rand() ^ 2)
		printf "http://s%d.example/p%d\thttp://s%d.example/p%d\n", s % 37, s, d % 37, d
	}
}' >"$tmp/l2"
cut -f1 "$tmp/l2" "$tmp/p2" | sort -u >"$tmp/fetched"
awk -F "$tab" 'NR == FNR { f[$1] = 1; next } !($1 in f)' "$tmp/fetched" "$tmp/gen.tsv" |
	cat - "$tmp/l2" >"$tmp/union"
exits 0 "-u on the generated graph" wa-linkmat -v -m 512K -s 3 -u "$tmp/large" -p "$tmp/p2" \
	-o "$tmp/upd" "$tmp/l2"
like "$(grep 'join' "$tmp/stderr")" 'join by destination' "-u joins the links by merges under -m 512K"
exits 0 "-u with the default budget" wa-linkmat -v -s 3 -u "$tmp/large" -p "$tmp/p2" \
	-o "$tmp/upd_table" "$tmp/l2"
like "$(grep 'join' "$tmp/stderr")" 'join in a table' "which joins them in a table"
ok "-u gives the same files either way" same_graph "$tmp/upd" "$tmp/upd_table"
exits 0 "the full rebuild" wa-linkmat -q -s 3 -p "$tmp/p2" -o "$tmp/full" "$tmp/union"
wa-linkmat --dump "$tmp/upd" >"$tmp/dump_u" 2>"$tmp/stderr"
wa-linkmat --dump "$tmp/full" >"$tmp/dump_f" 2>"$tmp/stderr"
same_file "$tmp/dump_u" "$tmp/dump_f" "-u gives the links of the full rebuild"
wa-linkmat --dump-nodes "$tmp/upd" | cut -f1,3,4 >"$tmp/deg_u"
wa-linkmat --dump-nodes "$tmp/full" | cut -f1,3,4 >"$tmp/deg_f"
join -t "$tab" -v 1 "$tmp/deg_u" "$tmp/deg_f" | awk -F "$tab" '$2 != 0 || $3 != 0' >"$tmp/extra"
is "$(cat "$tmp/extra")" "" "the nodes only -u has are old pages now without links"
join -t "$tab" "$tmp/deg_u" "$tmp/deg_f" | awk -F "$tab" '$2 != $4 || $3 != $5' >"$tmp/diff"
is "$(cat "$tmp/diff")" "" "the others have the degrees of the full rebuild"

exits 1 "-u with a budget too small for the old graph's node bitmap" \
	wa-linkmat -q -m 64K -u "$tmp/large" -o "$tmp/nothing" "$tmp/l2"
like "$(cat "$tmp/stderr")" "-m 64K is too small to update a graph of $gen_nodes nodes: give at least" \
	"says how much it needs"

# A damaged old graph stops an update, and nothing is written.
cp -R "$tmp/large" "$tmp/bad"
printf 'X' | dd of="$tmp/bad/slice-0001" bs=1 seek=200 conv=notrunc 2>/dev/null
exits 1 "-u with a damaged slice fails" wa-linkmat -q -u "$tmp/bad" -o "$tmp/nothing" "$tmp/l2"
like "$(cat "$tmp/stderr")" 'bad/slice-0001: (payload checksum mismatch|.*block)' \
	"naming the file and the fault"
ok "and writes no graph" test ! -e "$tmp/nothing"

# Errors and replacement.
touch "$tmp/file"
exits 1 "an output that cannot be created is a runtime error" \
	wa-linkmat -q -o "$tmp/file/g" "$links"
ok "which leaves no graph" test ! -e "$tmp/file/g"
mkdir "$tmp/mine"
touch "$tmp/mine/keep"
exits 1 "a directory that is not a graph is not replaced" wa-linkmat -q -o "$tmp/mine" "$links"
ok "and keeps its files" test -e "$tmp/mine/keep"
cp -R "$tmp/g" "$tmp/rep"
exits 0 "an old graph is replaced" wa-linkmat -q -s 2 -o "$tmp/rep" "$tmp/gen.tsv"
ok "by the new one" same_graph "$tmp/rep" "$tmp/large"
exits 0 "an empty input" wa-linkmat -q -o "$tmp/empty" </dev/null
is "$(wa-linkmat --dump "$tmp/empty"; wa-linkmat --dump-nodes "$tmp/empty")" "" \
	"gives an empty graph"

# Interrupted: no GRAPH, no temporary directory, no GNU sort left.
mkdir "$tmp/int"
wa-linkmat -q -m 64K -j 1 -o "$tmp/int/g" "$tmp/gen.tsv" "$tmp/gen.tsv" 2>/dev/null &
pid=$!
i=0
while [ -z "$(leftovers "$tmp/int")" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
kill -TERM "$pid"
wait "$pid"
is $? 143 "SIGTERM stops a build"
ok "which leaves no graph" test ! -e "$tmp/int/g"
is "$(leftovers "$tmp/int")" "" "and no temporary directory"
sleep 0.2
is "$(pgrep -f "$tmp/int" || true)" "" "and no sort running"

done_testing
