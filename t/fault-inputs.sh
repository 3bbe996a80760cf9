# The inputs that t/faults.t and t/read-errors.t damage, sourced after
# t/lib.sh:
#   fault_inputs DIR GEN   makes in DIR, with GEN (scripts/gen-graph), a
#                          generated graph (links.tsv, links.gz, pages.tsv,
#                          g/) and its ranks (imp.tsv, imp.vec), a history
#                          (hist.tsv), a page state (state.tsv), a WARC of
#                          three pages, a gzip member each (crawl.warc.gz),
#                          and an OPIC state (opic.st); sets WARC_FIRST to
#                          the size of the WARC's first member
#   previous_outputs IN OUT
#                          one good run of each tool on the inputs in IN,
#                          its outputs in OUT, kept in $tmp/previous
#   fault TOOL WHAT MESSAGE CMD...
#                          CMD exits 1; stderr has "TOOL: ...MESSAGE" (an
#                          extended regex: the file, its line or offset,
#                          the reason); the outputs are those of before,
#                          with no temporary file: OUT against
#                          $tmp/previous, and each pair of FAULT_ALSO
#                          ("KEPT DIR ...")
f_page() {	# URL BODY ID: a gzip member of a WARC response record
	f_body=$2
	f_http=$(printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s' \
		${#f_body} "$f_body")
	printf 'WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:%s>\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n' \
		"$1" "$3" ${#f_http} "$f_http" | gzip -n
}

fault_inputs() {
	f_d=$1
	"$2" -n 400 -m powerlaw -S 8 -P "$f_d/pages.tsv" >"$f_d/links.tsv"
	gzip -n -c "$f_d/links.tsv" >"$f_d/links.gz"
	wa-linkmat -q -p "$f_d/pages.tsv" -o "$f_d/g" "$f_d/links.tsv"
	wa-pagerank -q -b "$f_d/imp.vec" -o "$f_d/imp.tsv" "$f_d/g"
	"$ROOT/scripts/gen-history" 300 >"$f_d/hist.tsv"
	awk -F '\t' -v OFS='\t' '{ print $1, "html", $2, $2, "0.5", (NR % 3 ? 1700000000 - NR * 600 : "-"), "-" }' \
		"$f_d/imp.tsv" >"$f_d/state.tsv"
	f_page http://a.test/ '<a href="/x">x</a><a href="http://b.test/">b</a>' \
		7f1c1c0e-0000-4000-8000-000000000001 >"$f_d/crawl.warc.gz"
	WARC_FIRST=$(wc -c <"$f_d/crawl.warc.gz")
	f_page http://a.test/x '<a href="/">home</a>' 7f1c1c0e-0000-4000-8000-000000000002 \
		>>"$f_d/crawl.warc.gz"
	f_page http://b.test/ '<a href="http://a.test/x">x</a>' 7f1c1c0e-0000-4000-8000-000000000003 \
		>>"$f_d/crawl.warc.gz"
	wa-opic -q -S "$f_d/opic.st" "$f_d/links.tsv" >/dev/null
}

previous_outputs() {
	f_i=$1 f_o=$2
	ok "wa-extract: a good run" wa-extract -q -p "$f_o/pages.tsv" "$f_i/crawl.warc.gz"
	is "$(cut -f1,2 "$tmp/stdout" | sort | tr '\t\n' ' ')" \
		"http://a.test/ http://a.test/x http://a.test/ http://b.test/ http://a.test/x http://a.test/ http://b.test/ http://a.test/x " \
		"which finds the links of the WARC"
	ok "wa-linkmat: a good run" wa-linkmat -q -p "$f_i/pages.tsv" -o "$f_o/g" "$f_i/links.tsv"
	ok "wa-pagerank: a good run" \
		wa-pagerank -q -U "$f_o/use.tsv" -b "$f_o/imp.vec" -o "$f_o/imp.tsv" "$f_o/g"
	ok "wa-invrank: a good run" wa-invrank -q -b "$f_o/inv.vec" -o "$f_o/inv.tsv" "$f_o/g"
	ok "wa-lambda: a good run" wa-lambda -q -o "$f_o/lambda.tsv" "$f_i/hist.tsv"
	ok "wa-schedule: a good run" wa-schedule -q -G 100 --now 1700000000 --plan "$f_o/freq.tsv" \
		--summary "$f_o/summary.tsv" "$f_i/state.tsv"
	ok "wa-partition: a good run" wa-partition -q -n 3 -o "$f_o/rules.tsv" "$f_i/links.tsv"
	cp "$f_i/opic.st" "$f_o/opic.st"
	cp -a "$f_o" "$tmp/previous"
	FAULT_OUT=$f_o
}

fault() {
	f_tool=$1 f_what=$2 f_msg=$3; shift 3
	exits 1 "$f_tool: $f_what: exit 1" "$@"
	like "$(cat "$tmp/stderr")" "^$f_tool: .*$f_msg" "$f_tool: $f_what: the message names it"
	f_diff=$(diff -r "$tmp/previous" "$FAULT_OUT" 2>&1)
	set -- ${FAULT_ALSO:-}
	while [ $# -ge 2 ]; do
		f_diff=$f_diff$(diff -r "$1" "$2" 2>&1)
		shift 2
	done
	is "$f_diff" "" "$f_tool: $f_what: the previous outputs are intact, no temporary file"
}
