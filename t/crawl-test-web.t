#!/bin/sh
# The crawl of the test web end to end: wa-fetch | wa-extract gives
# exactly the links, pages and robots decisions written by hand in
# testdata/web/expected, warcio reads the WARC, and the graph of the crawl
# ranks.
. "$(dirname "$0")/lib.sh"
needs_python networkx
. "$T_DIR/warc-lib.sh"
need_warcio
web=$TESTDATA/web
web_start

# -w 0: politeness has its own tests; strict.test's Crawl-delay of 1 s
# still spaces its requests.
ok "wa-fetch crawls the test web" \
	sh -c "wa-fetch -q -w 0 --allow-private $WEB_RESOLVE -o '$tmp/crawl.warc.gz' \
		'$web/seeds.txt' >'$tmp/fetch.log'"

is "$(cut -f1 "$tmp/fetch.log" | sort)" "$(sort "$web/seeds.txt")" \
	"the fetch log has every seed exactly once"
sort "$web/seeds.txt" >"$tmp/seeds.sorted"
is "$(awk -F '\t' '$3 == "robots"' "$tmp/fetch.log" | cut -f1 | sort)" \
	"$(awk -F '\t' '$2 == "disallow"' "$web/expected/robots.tsv" | cut -f1 |
		join - "$tmp/seeds.sorted")" \
	"the seeds robots.txt disallows are not fetched, and only those"
cut -f1,11 "$tmp/fetch.log" | sort >"$tmp/verdicts"
join -t "$(printf '\t')" "$web/expected/robots.tsv" "$tmp/verdicts" |
	awk -F '\t' '$2 != $3' >"$tmp/verdict.diff"
is "$(cat "$tmp/verdict.diff")" "" "robots verdicts of the fetched seeds are the expected ones"
is "$(join -t "$(printf '\t')" "$web/expected/robots.tsv" "$tmp/verdicts" | wc -l)" \
	"$(join -t "$(printf '\t')" "$web/expected/robots.tsv" "$tmp/seeds.sorted" | wc -l)" \
	"and every seed with an expected verdict was compared"
is "$(awk -F '\t' '$3 !~ /^[0-9][0-9][0-9]$/ && $3 != "robots"' "$tmp/fetch.log")" "" \
	"every other seed got an HTTP status"

ok "wa-extract reads the WARC" \
	sh -c "wa-extract -q -p '$tmp/pages.tsv' '$tmp/crawl.warc.gz' >'$tmp/links.tsv'"
sort -u "$tmp/links.tsv" >"$tmp/links.sorted"
same_file "$tmp/links.sorted" "$web/expected/links.tsv" \
	"the links are exactly the hand-written ones"
cut -f1,2,5,6,7 "$tmp/pages.tsv" | sort -u >"$tmp/pages.sorted"
same_file "$tmp/pages.sorted" "$web/expected/pages.tsv" \
	"the pages, their types, out-degrees, roots and doctypes too"
is "$(cut -f3,4 "$tmp/pages.tsv" | grep -Ev '^[0-9]+	sha1:[A-Z2-7]{32}$')" "" \
	"every page has its fetch time and payload digest"
# wa-fetch also records the robots.txt fetches it makes for itself, so
# the WARC may hold a site's robots.txt twice: pages compare without them.
grep -v '/robots\.txt	' "$tmp/pages.tsv" | cut -f1,3,4 | sort >"$tmp/pages.times"
cut -f1,2,6 "$tmp/fetch.log" | sort >"$tmp/log.times"
join -t "$(printf '\t')" "$tmp/pages.times" "$tmp/log.times" |
	awk -F '\t' '$2 != $4 || $3 != $5' >"$tmp/pages-vs-log"
is "$(cat "$tmp/pages-vs-log")" "" "the pages' times and digests are the fetch log's"

# The WARC as warcio (webrecorder) reads it: a warcinfo first, and a
# response record for every 2xx/3xx/4xx row of the log.
warcio_tsv "$tmp/crawl.warc.gz" warc-type warc-target-uri warc-payload-digest >"$tmp/index"
is "$(head -1 "$tmp/index" | cut -f1)" warcinfo "warcio reads the warcinfo record first"
awk -F '\t' '$1 == "response" { print $2 "\t" $3 }' "$tmp/index" | sort -u >"$tmp/responses"
awk -F '\t' '$3 ~ /^[0-9]+$/ { print $1 "\t" $6 }' "$tmp/fetch.log" | sort >"$tmp/logged"
is "$(comm -23 "$tmp/logged" "$tmp/responses")" "" \
	"warcio finds a response for every logged status, with the log's digest"
is "$(cut -f1 "$tmp/responses" | sort -u)" "$(cut -f1 "$tmp/logged")" \
	"and no response for a URL the log has no status for"
is "$(awk -F '\t' '$1 == "request"' "$tmp/index" | wc -l)" \
	"$(awk -F '\t' '$1 == "response"' "$tmp/index" | wc -l)" \
	"and a request record for each response"

# The graph of the crawl: every fetched or linked URL is a node, every
# node that may be a document ranked, as networkx ranks it.
ok "wa-linkmat builds the crawl's graph" \
	wa-linkmat -q -p "$tmp/pages.tsv" -o "$tmp/graph" "$tmp/links.tsv"
ok "wa-pagerank ranks it" wa-pagerank -q -o "$tmp/importance.tsv" "$tmp/graph"
is "$(cut -f1 "$tmp/importance.tsv")" "$(wa-linkmat --dump-nodes "$tmp/graph" |
	awk -F '\t' '$2 !~ /^(other|error|dead|robots|sitemap)$/' | cut -f1)" \
	"the ranking has every URL of the crawl that may be a document"
is "$( (cut -f1 "$tmp/links.tsv"; cut -f2 "$tmp/links.tsv"; cut -f1 "$tmp/pages.tsv") |
	sort -u | wc -l)" "$(wa-linkmat --dump-nodes "$tmp/graph" | wc -l)" \
	"and the graph every URL of the crawl"
out=$("$PY" "$T_DIR/rank-verify.py" pagerank "$tmp/links.tsv" "$tmp/pages.tsv" \
	"$tmp/importance.tsv" 2>&1)
t_result $? "the importance is networkx's, the rows summing to 1 less the others' share"
printf '%s\n' "$out" | sed 's/^/#   /'

done_testing
