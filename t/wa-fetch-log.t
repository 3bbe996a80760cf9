#!/bin/sh
# wa-fetch's fetch log: the exact row of each URL (status, MIME type, decoded
# size, payload digest, Last-Modified, ETag), computed here independently
# with sha1sum, base32, stat and curl; bad input; the private-address guard.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio

a=$(t_addr 1)
site=$tmp/site
mkdir -p "$site/gz" "$site/bomb"
printf '<html><body>home</body></html>\n' >"$site/index.html"
printf 'plain text\n' >"$site/page.txt"
i=0; while [ $i -lt 300 ]; do echo "line $i of a compressible text file"; i=$((i + 1)); done >"$site/gz/big.txt"
head -c 3000000 /dev/urandom >"$site/large.bin"
head -c 50000000 /dev/zero | gzip -9 >"$site/bomb/zeros.html"
nginx_start one "$a" 8080 "$site" '
	location /gz/ { gzip on; gzip_types text/plain; gzip_min_length 1; }
	location /bomb/ { default_type text/html; add_header Content-Encoding gzip; }'
R="--resolve one.test:8080:$a --allow-private -w 0"
U=http://one.test:8080

cat >"$tmp/urls" <<URLS
$U/index.html	extra	columns
$U/page.txt
$U/missing
HTTP://ONE.TEST:8080/./page.txt
not a url
$U/gz/big.txt
URLS
before=$(date +%s)
ok "a run over five URLs succeeds" sh -c "WA_PROGRESS_INTERVAL=0 wa-fetch -v $R -o $tmp/crawl.warc.gz $tmp/urls >$tmp/log"
after=$(date +%s)
cp "$tmp/stderr" "$tmp/run.err"
like "$(cat "$tmp/run.err")" "urls:5: bad URL: no scheme: not a url" "a bad URL is reported with its file and line"
is "$(wc -l <"$tmp/log")" 5 "every distinct input URL has exactly one row"
is "$(col 1 <"$tmp/log" | sort | tr '\n' ' ')" \
	"$U/gz/big.txt $U/index.html $U/missing $U/page.txt not a url " \
	"rows are keyed by the canonical URL, or the input as given when bad"

f=$site/index.html
want="$U/index.html	200	text/html	$(wc -c <"$f")	$(sha1_b32 "$f")	$(mtime "$f")	\"$(printf '%x-%x' "$(mtime "$f")" "$(wc -c <"$f")")\"	-	-	allow"
is "$(row $U/index.html | cut -f 1,3-)" "$want" "an HTML page: status, type, size, digest, Last-Modified, ETag"
t=$(row $U/index.html | col 2)
ok "the fetch time is the time of the run" test "$t" -ge "$before" -a "$t" -le "$after"
f=$site/page.txt
is "$(row $U/page.txt | cut -f 3-9)" \
	"200	text/plain	$(wc -c <"$f")	$(sha1_b32 "$f")	$(mtime "$f")	\"$(printf '%x-%x' "$(mtime "$f")" "$(wc -c <"$f")")\"	-" \
	"a text page, requested twice in two spellings, is fetched once"
curl -s --resolve one.test:8080:$a "$U/missing" >"$tmp/404"
is "$(row $U/missing | cut -f 3-11)" \
	"404	text/html	$(wc -c <"$tmp/404")	$(sha1_b32 "$tmp/404")	-	-	-	-	allow" \
	"a 404 keeps its body's size and digest"
is "$(row 'not a url' | cut -f 2-11)" "-	bad-url	-	-	-	-	-	-	-	-" "a bad URL is logged as bad-url"

curl -s -H 'Accept-Encoding: gzip, deflate' --resolve one.test:8080:$a "$U/gz/big.txt" >"$tmp/gz"
ok "the server does compress" sh -c "gzip -t <$tmp/gz"
is "$(row $U/gz/big.txt | cut -f 3-6)" \
	"200	text/plain	$(wc -c <"$site/gz/big.txt")	$(sha1_b32 "$tmp/gz")" \
	"a gzip page: the size after decoding, the digest of the body as sent"

like "$(cat "$tmp/run.err")" "pages.*sites? active, [0-9]+ idle connections?" \
	"the progress line tells active sites and idle connections"
like "$(cat "$tmp/run.err")" "wa-fetch: $U/missing 404" "-v tells each request"

# The WARC, read by warcio: a request and a response per fetch, linked,
# with the digest, the address and the date of the log.
curl -s --resolve one.test:8080:$a "$U/robots.txt" >"$tmp/robots.404"
printf '%s\t%s\n' "$U/robots.txt" "$(sha1_b32 "$tmp/robots.404")" >"$tmp/robots-row"
warcio_tsv "$tmp/crawl.warc.gz" warc-type warc-target-uri warc-payload-digest \
	warc-ip-address warc-date warc-record-id warc-concurrent-to >"$tmp/index"
is "$(cut -f 1 "$tmp/index" | sort | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')" \
	"5 request, 5 response, 1 warcinfo, " "warcinfo, then a request and a response per fetch"
is "$(awk -F '\t' '$1 == "response" { print $2 "\t" $3 }' "$tmp/index" | sort)" \
	"$(awk -F '\t' '$3 ~ /^[0-9]/ { print $1 "\t" $6 }' "$tmp/log" |
		cat - "$tmp/robots-row" | sort)" \
	"each response has the URL and the payload digest of its log row (robots.txt: 404)"
is "$(awk -F '\t' '$1 != "warcinfo" { print $4 }' "$tmp/index" | sort -u)" "$a" "and WARC-IP-Address"
is "$(awk -F '\t' '$1 == "request" { print $7 }' "$tmp/index" | sort)" \
	"$(awk -F '\t' '$1 == "response" { print $6 }' "$tmp/index" | sort)" \
	"each request is WARC-Concurrent-To its response"
t=$(row $U/page.txt | col 2)
is "$(awk -F '\t' -v u=$U/page.txt '$1 == "response" && $2 == u { print substr($5, 1, 19) }' "$tmp/index")" \
	"$(date -u -d @$t +%Y-%m-%dT%H:%M:%S)" "WARC-Date is the fetch time of the log"
zcat "$tmp/crawl.warc.gz" | grep -a -i '^transfer-encoding' >"$tmp/te"
is "$(cat "$tmp/te")" "" "no stored header announces a chunked body"

# --warc-max-size starts new files; each begins with a warcinfo record.
printf '%s\n' $U/index.html $U/page.txt $U/gz/big.txt |
	wa-fetch $R -q --warc-max-size 1K -o "$tmp/rot.warc.gz" >/dev/null
files=$(cd "$tmp" && ls rot*.warc.gz)
like "$(echo $files)" "^rot-00001.warc.gz rot-00002.warc.gz .*rot.warc.gz$" "a small --warc-max-size rotates the WARC"
for f in $files; do warcio_tsv "$tmp/$f" warc-type; done >"$tmp/types"
is "$(grep -c warcinfo "$tmp/types") $(grep -c response "$tmp/types")" "$(echo $files | wc -w) 4" \
	"every file starts with warcinfo; the responses are all there"

# Size caps: the body is cut at --max-size, before and after decoding.
printf '%s\n' "$U/large.bin" "$U/bomb/zeros.html" >"$tmp/big-urls"
wa-fetch $R -q --max-size 1M "$tmp/big-urls" >"$tmp/log" 2>"$tmp/stderr"
head -c 1048576 "$site/large.bin" >"$tmp/first-mib"
is "$(row $U/large.bin | cut -f 3-6)" \
	"too-large	application/octet-stream	1048576	$(sha1_b32 "$tmp/first-mib")" \
	"a body over --max-size is cut there and logged too-large"
is "$(row $U/bomb/zeros.html | cut -f 3,5)" "too-large	1048576" \
	"a gzip bomb stops at --max-size decoded bytes"
# Under valgrind the peak memory is valgrind's own.
if ! under_valgrind; then
	/usr/bin/time -f %M -o "$tmp/rss" wa-fetch $R -q --max-size 2G "$tmp/big-urls" >/dev/null 2>&1
	ok "decoding 50 MB of zeros takes less than 40 MB of memory" test "$(cat "$tmp/rss")" -lt 40000
fi

# From stdin; the guard against private addresses.
requests=$(wc -l <"$tmp/nginx-one/logs/access.log")
echo "$U/page.txt" | wa-fetch --resolve one.test:8080:$a -q >"$tmp/log" 2>"$tmp/err"
is "$(cut -f 1,3,11 "$tmp/log")" "$U/page.txt	private-address	-" \
	"a loopback server is refused without --allow-private"
is "$(wc -l <"$tmp/nginx-one/logs/access.log")" "$requests" "and gets no request"
is "$(echo "$U/page.txt" | wa-fetch $R -q | cut -f 3)" 200 "URLs are read from stdin"

# --now: the run's clock starts at TIME plus the real time elapsed; the
# log rows and the WARC-Dates follow it, the delay (-w 1) stays real.
printf '%s\n' $U/index.html $U/page.txt >"$tmp/now-urls"
t0=$(date -u -d 2027-01-15T00:00:00Z +%s)
before=$(date +%s)
wa-fetch --resolve one.test:8080:$a --allow-private -w 1 -q --now 2027-01-15T00:00:00Z \
	-o "$tmp/now.warc.gz" "$tmp/now-urls" >"$tmp/log"
after=$(date +%s)
t1=$(row $U/index.html | col 2) t2=$(row $U/page.txt | col 2)
ok "--now: fetch times are TIME plus the seconds elapsed" \
	test "$t1" -ge "$t0" -a "$t2" -le $((t0 + after - before))
ok "the delay between two requests to a site is real time" test "$t2" -ge $((t1 + 1))
warcio_tsv "$tmp/now.warc.gz" warc-type warc-target-uri warc-date >"$tmp/index"
is "$(awk -F '\t' '$1 == "response" && $2 != u { print $2 "\t" substr($3, 1, 19) }' \
	u=$U/robots.txt "$tmp/index")" \
	"$(printf '%s\t%s\n' $U/index.html "$(date -u -d @$t1 +%Y-%m-%dT%H:%M:%S)" \
		$U/page.txt "$(date -u -d @$t2 +%Y-%m-%dT%H:%M:%S)")" \
	"the WARC-Dates of the pages are the times of their log rows"
rdate=$(awk -F '\t' '$1 == "response" && $2 == u { print substr($3, 1, 19) }' \
	u=$U/robots.txt "$tmp/index")
tr=$(date -u -d "${rdate}Z" +%s)
ok "robots.txt, asked first, is dated from TIME too" test "$tr" -ge "$t0" -a "$tr" -le "$t1"
wa-fetch --resolve one.test:8080:$a --allow-private -w 0 -q --now $((t0 + 86400)) \
	-P "$tmp/log" "$tmp/now-urls" >"$tmp/log2"
is "$(cut -f 2,3,9 "$tmp/log2" | awk -F '\t' -v t=$((t0 + 86400)) -v e=$(($(date +%s) - after)) \
	'$1 >= t && $1 <= t + e { $1 = "ok" } { print }')" "ok 304 0
ok 304 0" "a day later in Unix seconds, unchanged pages answer 304"
exits 2 "--now needs a time" wa-fetch --now soon "$tmp/urls"
exits 2 "--now before 1970 is refused" wa-fetch --now 1969-12-31 "$tmp/urls"

# Bad options and files.
exits 2 "-r 0 is a usage error" wa-fetch -r 0 "$tmp/urls"
exits 2 "--resolve needs HOST:PORT:ADDR" wa-fetch --resolve nothing "$tmp/urls"
exits 2 "-w needs a duration" wa-fetch -w soon "$tmp/urls"
exits 2 "-A needs a product token" wa-fetch -A "/1.0" "$tmp/urls"
exits 2 "--max-size 0 is refused" wa-fetch --max-size 0 "$tmp/urls"
exits 1 "a missing input file is an error" wa-fetch $R "$tmp/nothing"
like "$(cat "$tmp/stderr")" "nothing" "naming the file"
printf 'x\t1\t200\n' >"$tmp/badlog"
exits 1 "a previous log that is no fetch log is refused" wa-fetch $R -P "$tmp/badlog" "$tmp/urls"
like "$(cat "$tmp/stderr")" "badlog:1" "with its file and line"
ok "-h prints the usage" sh -c "wa-fetch -h | grep -q 'usage: wa-fetch'"
like "$(wa-fetch --version)" "^wa-fetch \(wa\) " "--version"

done_testing
