#!/bin/sh
# The test web (testdata/web) and the misbehaving server (t/fault-server.py)
# serve what testdata/web/README and the server's header say, checked with
# curl; and the ground truth in testdata/web/expected is consistent with
# itself and with seeds.txt.
. "$(dirname "$0")/lib.sh"
# No wa tool runs here: valgrind has nothing to check.
under_valgrind && skip_all "the test web is served by nginx and read by curl only"
W=$TESTDATA/web
E=$W/expected
H=http://www.test:8080 D=http://docs.test:8080 F=http://feeds.test:8080 S=http://strict.test:8080

# --- The ground truth, against itself ---
for f in links pages robots; do
	ok "expected/$f.tsv is sorted (LC_ALL=C sort)" sort -c "$E/$f.tsv"
done
is "$(awk -F '\t' 'NF != 3' "$E/links.tsv")" "" "links.tsv has three columns"
is "$(cut -f3 "$E/links.tsv" | sed 's/+xml$//' | grep -vxE \
    'a|area|frame|iframe|link|form|refresh|redirect|sitemap|rss|atom|enclosure|xlink|stylesheet|xinclude|doctype|schema')" \
    "" "every how is a token of wa-formats(5)"
# The +xml rule, by suffix: a suspect suffix always has it; a target on an
# HTML page without a suspect suffix never has it.
is "$(awk -F '\t' '$2 ~ /\.(xml|rss|rdf|atom|wml|xsd|dtd)$/ && $3 !~ /\+xml$/' "$E/links.tsv")" "" \
	"every link to an XML suspect suffix is marked +xml"
is "$(awk -F '\t' 'NR == FNR { type[$1] = $2; next }
	type[$1] == "html" && $2 !~ /\.(xml|rss|rdf|atom|wml|xsd|dtd)$/ && $3 ~ /\+xml$/' \
	"$E/pages.tsv" "$E/links.tsv")" "" "no other link from an HTML page is marked +xml"
is "$(cut -f1,2 "$E/links.tsv" | uniq -d)" "" "no page gives a target twice"
is "$(awk -F '\t' 'NF != 5 || $2 !~ /^(html|xml|dtd|other|dead|robots|sitemap|error|noindex)$/' \
	"$E/pages.tsv")" "" \
	"pages.tsv has five columns and known types"
is "$(awk -F '\t' 'NR == FNR { n[$1]++; next } { if (n[$1] + 0 != $3) print $1 }' \
	"$E/links.tsv" "$E/pages.tsv")" "" "every page's outdeg is its number of links"
is "$(cut -f1 "$E/links.tsv" | uniq | LC_ALL=C join -v1 - "$E/pages.tsv")" "" \
	"every link's source is a page"
cut -f1 "$E/pages.tsv" >"$tmp/pages.url"
sort >"$tmp/kept-out" <<EOF
$H/private/secret.html
$S/drafts/one.html
$S/private/secret.html
$S/script.cgi
EOF
sort "$W/seeds.txt" | comm -23 - "$tmp/kept-out" >"$tmp/seeds.fetched"
same_file "$tmp/pages.url" "$tmp/seeds.fetched" "the pages are the seeds but the four robots.txt keeps out"
is "$(sort -u "$W/seeds.txt" | wc -l)" "$(wc -l <"$W/seeds.txt")" "seeds.txt names each URL once"
is "$(awk -F '\t' '$2 != "allow" && $2 != "disallow"' "$E/robots.tsv")" "" \
	"robots.tsv verdicts are allow or disallow"
while read -r url; do
	v=$(awk -F '\t' -v u="$url" '$1 == u { print $2 }' "$E/robots.tsv")
	is "$v" disallow "robots.tsv disallows the seed $url"
done <"$tmp/kept-out"

# --- The web ---
web_start
is "$WEB_SITES" "docs.test feeds.test strict.test www.test" "web_start serves the four sites"
is "$(echo "$WEB_RESOLVE" | wc -w)" 8 "WEB_RESOLVE has a --resolve for each"
like "$WEB_RESOLVE" "--resolve www\.test:8080:$(web_addr www.test | sed 's/\./\\./g')( |$)" \
	"it maps www.test:8080 to the site's address"
C="curl -s -m 10 $WEB_RESOLVE"

status() {	# the status each seed answers with
	case $1 in
	"$H/old.html" | "$H/feed") echo 301 ;;
	"$H/moved.html" | "$H/chain.html") echo 302 ;;
	"$H/missing.html" | "$H/gone.html" | "$D/robots.txt") echo 404 ;;
	*) echo 200 ;;
	esac
}
while read -r url; do
	is "$($C -o /dev/null -w '%{http_code}' "$url")" "$(status "$url")" "$url answers $(status "$url")"
done <"$W/seeds.txt"

# The bytes served are the files.
for p in www.test/index.html www.test/latin1.html www.test/bom.html www.test/koi8/header.html \
    docs.test/catalog.xml feeds.test/news.rss strict.test/robots.txt; do
	host=${p%%/*} path=${p#*/}
	$C -o "$tmp/body" "http://$host:8080/$path"
	same_file "$tmp/body" "$W/$p" "http://$host:8080/$path is the file"
done
$C -o "$tmp/body" "$H/%C3%BCber.html"
same_file "$tmp/body" "$W/www.test/über.html" "a non-ASCII name is served percent-encoded as UTF-8"

ctype() { $C -o /dev/null -w '%{content_type}' "$1"; }
is "$(ctype "$H/koi8/header.html")" "text/html; charset=koi8-r" "koi8/header.html has its charset in the header only"
is "$(ctype "$H/latin1.html")" "text/html" "latin1.html has none in the header"
is "$(ctype "$D/index.xhtml")" "application/xhtml+xml" "XHTML is application/xhtml+xml"
is "$(ctype "$D/catalog.xml")" "text/xml" "catalog.xml is text/xml"
is "$(ctype "$D/catalog.dtd")" "application/xml-dtd" "a DTD is application/xml-dtd"
is "$(ctype "$D/catalog.xsd")" "application/xml" "a schema is application/xml"
is "$(ctype "$F/news.rss")" "application/rss+xml" "RSS is application/rss+xml"
is "$(ctype "$F/news.atom")" "application/atom+xml" "Atom is application/atom+xml"
is "$(ctype "$S/drafts/final")" "text/html" "strict.test's suffix-less drafts/final is HTML"
is "$(ctype "$S/script.cgi?x=1")" "application/octet-stream" "script.cgi is application/octet-stream"
is "$(ctype "$H/robots.txt")" "text/plain" "robots.txt is text/plain"

header() {	# URL NAME [curl args]: the value of a response header
	url=$1 name=$2; shift 2
	$C -D - -o /dev/null "$@" "$url" | tr -d '\r' |
	    awk -v n="$name" 'BEGIN { n = tolower(n) ": " }
		index(tolower($0), n) == 1 { print substr($0, length(n) + 1) }'
}

# gzip when asked, not otherwise, and the same bytes once decoded.
for p in www.test/index.html docs.test/catalog.xml docs.test/index.xhtml \
    docs.test/catalog.dtd feeds.test/news.rss feeds.test/news.atom feeds.test/robots.txt; do
	url=http://${p%%/*}:8080/${p#*/}
	is "$(header "$url" Content-Encoding -H 'Accept-Encoding: gzip')" gzip "$url is gzip-encoded when asked"
	$C -H 'Accept-Encoding: gzip' -o "$tmp/body.gz" "$url"
	gzip -dc "$tmp/body.gz" >"$tmp/body"
	same_file "$tmp/body" "$W/$p" "and decodes to the file"
	is "$(header "$url" Content-Encoding)" "" "and plain when not asked"
done

# Redirects and 404s.
is "$(header "$H/old.html" Location)" "$H/new.html" "old.html moves (301) to new.html"
is "$(header "$H/moved.html" Location)" "$D/index.xhtml" "moved.html moves (302) to another site"
is "$(header "$H/feed" Location)" "$F/news.rss" "feed moves (301) to an RSS feed on another site"
is "$(header "$H/chain.html" Location)" "$H/old.html" "chain.html moves (302) to old.html"
is "$($C -L -o /dev/null -w '%{http_code} %{num_redirects} %{url_effective}' "$H/chain.html")" \
	"200 2 $H/new.html" "and on to new.html"
is "$($C -o /dev/null -w '%{http_code}' "$H/nowhere.html")" 404 "an unknown file is 404"

# Last-Modified and ETag, and the conditional requests they allow.
lm=$(header "$H/page1.html" Last-Modified)
like "$lm" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT$' "Last-Modified is sent"
etag=$(header "$H/page1.html" ETag)
like "$etag" '^"[0-9a-f]+-[0-9a-f]+"$' "a strong ETag is sent"
is "$($C -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$H/page1.html")" 304 \
	"If-None-Match with it gives 304"
is "$($C -o /dev/null -w '%{http_code}' -H "If-Modified-Since: $lm" "$H/page1.html")" 304 \
	"If-Modified-Since with it gives 304"
is "$($C -o /dev/null -w '%{http_code}' -H 'If-None-Match: "0-0"' "$H/page1.html")" 200 \
	"another ETag gives 200"
like "$(header "$H/page1.html" ETag -H 'Accept-Encoding: gzip')" '^W/"' "a gzip response has a weak ETag"

# robots.txt variants.
for s in www.test feeds.test strict.test; do
	$C -o "$tmp/body" "http://$s:8080/robots.txt"
	same_file "$tmp/body" "$W/$s/robots.txt" "$s serves its robots.txt"
done
is "$($C -o /dev/null -w '%{http_code}' "$D/robots.txt")" 404 "docs.test has no robots.txt"

# The access log has each request with its time.
like "$(tail -1 "$(web_log www.test)")" '^[0-9]{10}\.[0-9]{3} [0-9]+ [0-9]+ "GET /robots.txt HTTP/1.1" 200 [0-9]+ 127\.[0-9.]+$' \
	"the access log of a site has its requests"

# --- The misbehaving server ---
fault_start
is "$FAULT_HOSTS" "fault.test tls.test robots-403.test robots-500.test robots-big.test robots-endless.test robots-gzip.test robots-loop.test robots-redirect.test robots-slow.test robots-utf8.test" \
	"fault_start lists the server's hosts"
is "$(echo "$FAULT_RESOLVE" | wc -w)" 44 "FAULT_RESOLVE maps each to both ports"
C="curl -s $FAULT_RESOLVE"
u=http://fault.test:8080
code() { $C -m 10 -o /dev/null -w '%{http_code}' "$@"; }

is "$($C -m 10 "$u/ok")" "<html><head><title>ok</title></head><body><p>ok</p></body></html>" "/ok is a small page"
is "$(code "$u/robots.txt")" 404 "fault.test has no robots.txt"
is "$(code "$u/nothing")" 404 "an unknown path is 404"
is "$(code http://robots-500.test:8080/robots.txt)" 500 "robots-500.test's robots.txt answers 500"
is "$(code http://robots-403.test:8080/robots.txt)" 403 "robots-403.test's answers 403"
is "$($C -m 10 -L --max-redirs 5 -w ' %{http_code} %{num_redirects}' http://robots-redirect.test:8080/robots.txt | tr '\n' ' ')" \
	"User-agent: * Disallow: /private/  200 5" "robots-redirect.test's arrives after 5 redirects"
$C -m 10 -L --max-redirs 5 -o /dev/null http://robots-loop.test:8080/robots.txt
is $? 47 "robots-loop.test's takes more than 5"
is "$($C -m 10 -L --max-redirs 6 -w ' %{num_redirects}' http://robots-loop.test:8080/robots.txt | tr '\n' ' ')" \
	"User-agent: * Disallow: /  6" "exactly 6, to a file that disallows all"
$C -m 10 -o "$tmp/robots" http://robots-big.test:8080/robots.txt
is "$(wc -c <"$tmp/robots")" 614400 "robots-big.test's is 600 KiB"
is "$(grep -b -x 'Disallow: /early' "$tmp/robots")" "14:Disallow: /early" "it disallows /early at its start"
off=$(grep -b -x 'Disallow: /late' "$tmp/robots" | cut -d: -f1)
ok "and /late past 500 KiB (at $off)" test "$off" -gt 512000
is "$(grep -c '^Disallow' "$tmp/robots")" 2 "and has no other rule"
$C -m 3 -o "$tmp/body" http://robots-slow.test:8080/robots.txt
is "$?:$(($(wc -c <"$tmp/body") <= 2))" "28:1" "robots-slow.test's trickles (curl -m 3 times out)"

$C -m 3 -o "$tmp/body" "$u/slow"
is "$?:$(($(wc -c <"$tmp/body") <= 2))" "28:1" "/slow sends a byte every 2 s (curl -m 3 times out)"
rm -f "$tmp/body"; : >"$tmp/body"
$C -m 2 -o "$tmp/body" "$u/stall"
is "$?:$(wc -c <"$tmp/body")" "28:0" "/stall sends nothing"
$C -m 10 -L --max-redirs 20 -o /dev/null "$u/loop/0"
is $? 47 "/loop/0 redirects for ever"
is "$(grep -c '^req fault.test /loop/' "$tmp/fault.out")" 21 "through a new URL each time"
is "$(header "$u/self" Location)" /self "/self redirects to itself (a relative Location)"
is "$($C -m 10 -L --max-redirs 7 -w ' %{num_redirects}' "$u/chain/7")" \
	"<html><body>end of chain</body></html>
 7" "/chain/7 ends after 7 redirects"
$C -m 10 -L --max-redirs 6 -o /dev/null "$u/chain/7"
is $? 47 "which is one more than 6"
is "$($C -m 30 -o /dev/null -w '%{http_code} %{size_download}' "$u/big")" "200 52428800" "/big is 50 MiB"
is "$(header "$u/big" Content-Length -I)" 52428800 "announced by Content-Length"
is "$(header "$u/huge" Content-Length -I)" 10737418240 "/huge announces 10 GiB"
$C -m 10 --max-filesize 1000000 -o /dev/null "$u/big"
is $? 63 "which a client can refuse before reading it"
is "$($C -m 30 -o /dev/null -w '%{http_code} %{size_download}' "$u/big-chunked")" "200 52428800" \
	"/big-chunked is 50 MiB too"
is "$(header "$u/big-chunked" Transfer-Encoding -I):$(header "$u/big-chunked" Content-Length -I)" \
	"chunked:" "in chunks, with no length"
$C -m 30 -o "$tmp/bomb" "$u/bomb"
ok "/bomb is under 2 MiB on the wire" test "$(wc -c <"$tmp/bomb")" -lt 2097152
is "$(header "$u/bomb" Content-Encoding -I)" gzip "gzip-encoded"
is "$(tail -c 4 "$tmp/bomb" | od -An -tu4 | tr -d ' ')" 1073741824 "of 1 GiB, its trailer says"
ok "a valid gzip member (gzip -t decodes it and checks CRC and length)" gzip -t "$tmp/bomb"
$C -m 10 -o "$tmp/body" "$u/short"
is "$?:$(wc -c <"$tmp/body")" "18:100" "/short ends 900 bytes before its Content-Length"
$C -m 10 -o /dev/null "$u/bad-chunked"
is $? 56 "/bad-chunked breaks its chunked encoding"
for s in 429 503; do
	is "$(code "$u/$s"):$(header "$u/$s" Retry-After)" "$s:2" "/$s answers $s with Retry-After: 2"
done
t=https://tls.test:8443
is "$($C -m 10 --cacert "$FAULT_CERT" "$t/ok" | head -c 6)" "<html>" \
	"TLS on tls.test:8443 with the test's certificate"
$C -m 10 -o /dev/null "$t/ok"
is $? 60 "which a client refuses by default (self-signed)"
$C -m 10 --cacert "$FAULT_CERT" -o /dev/null https://fault.test:8443/ok
is $? 60 "and for another host name"
is "$($C -m 10 --cacert "$FAULT_CERT" -o /dev/null -w '%{http_code}' "$t/chain/0")" 200 \
	"every path is served over TLS too"

done_testing
