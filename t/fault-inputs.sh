# The inputs that t/faults.t and t/read-errors.t damage, sourced after
# t/lib.sh:
#   fault_inputs DIR GEN   makes in DIR, with GEN (scripts/gen-graph), a
#                          generated graph (links.tsv, links.gz, pages.tsv,
#                          g/) and its ranks (imp.tsv, imp.vec), a history
#                          (hist.tsv), a page state (state.tsv), a WARC of
#                          three pages, a gzip member each (crawl.warc.gz),
#                          and an OPIC state (opic.st); sets WARC_FIRST to
#                          the size of the WARC's first member
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
	wa-opic -q -s "$f_d/opic.st" "$f_d/links.tsv" >/dev/null
}
