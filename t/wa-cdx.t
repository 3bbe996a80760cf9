#!/bin/sh
# wa-cdx, the CDXJ index of WARC files: record by record the same lines as
# warcio.js's cdx-index (sorted as pywb wants them) for WARCs of wa-fetch,
# wget and warcio.js, gzip and plain, fetched from the test web on port
# 8080 (so keys carry the port before the ')'), and for testdata/cdx; each
# offset and length cut out its record; damaged files are reported with
# their offsets and their good records still indexed; -o is written whole
# or not at all; CDX=yes in the cycle writes the index of its WARC files.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
command -v wget >/dev/null || skip_all "needs wget (scripts/deps install)"
web_start

# The lines warcio.js writes for FILE, sorted in byte order as pywb wants.
theirs() { "$WARCIO" cdx-index "$1" | LC_ALL=C sort; }

# same_index FILE MSG: wa-cdx FILE exits 0 with warcio.js's lines.
same_index() {
	wa-cdx -q "$1" >"$tmp/ours" 2>"$tmp/ours.err"
	is "$?:$(cat "$tmp/ours.err")" 0: "$2: wa-cdx exits 0, no message"
	theirs "$1" >"$tmp/theirs"
	same_file "$tmp/ours" "$tmp/theirs" "$2: the lines of warcio.js's cdx-index"
	ok "$2: in byte order" sort -c "$tmp/ours"
}

# located FILE INDEX MSG: every line's offset and length cut out of FILE
# one record (decompressed if FILE is gzip), of its WARC-Target-URI, and
# in plain files the CRLF CRLF follows it.
located() {
	bad=0 n=0
	while read -r key ts json; do
		n=$((n + 1))
		url=$(printf '%s' "$json" | sed 's/^{"url":"\(\([^"\\]\|\\.\)*\)".*/\1/; s/\\\(.\)/\1/g')
		off=$(printf '%s' "$json" | sed 's/.*"offset":"\([0-9]*\)".*/\1/')
		len=$(printf '%s' "$json" | sed 's/.*"length":"\([0-9]*\)".*/\1/')
		tail -c +$((off + 1)) "$1" | head -c "$len" >"$tmp/cut"
		case $1 in
		*.gz) gzip -dc <"$tmp/cut" >"$tmp/record" 2>/dev/null ||
			{ bad=$((bad + 1)); continue; } ;;
		*) cp "$tmp/cut" "$tmp/record"
		   [ "$(tail -c +$((off + len + 1)) "$1" | head -c 4 | od -An -c | tr -d ' ')" = '\r\n\r\n' ] ||
			bad=$((bad + 1)) ;;
		esac
		head -1 "$tmp/record" | grep -q '^WARC/1\.[01]' || bad=$((bad + 1))
		grep -a -m1 '^WARC-Target-URI:' "$tmp/record" | tr -d '\r<>' |
			grep -qxF "WARC-Target-URI: $url" || bad=$((bad + 1))
	done <"$2"
	is "$n:$bad" "$(wc -l <"$2" | tr -d ' '):0" "$3"
}

# (a) wa-fetch's WARCs: a crawl of the test web, gzip and plain, and a
# second crawl with -P whose unchanged pages are revisit records.
fetch() {	# WARC [-P LOG]
	w=$1; shift
	wa-fetch -q -w 0 --allow-private $WEB_RESOLVE "$@" -o "$w" \
		"$TESTDATA/web/seeds.txt" >"${w%%.warc*}.log"
}
ok "wa-fetch crawls the test web" fetch "$tmp/crawl1.warc.gz"
ok "again, into a plain WARC" fetch "$tmp/plain.warc"
ok "again with -P: revisits" fetch "$tmp/crawl2.warc.gz" -P "$tmp/crawl1.log"
same_index "$tmp/crawl1.warc.gz" "wa-fetch gzip"
cp "$tmp/ours" "$tmp/crawl1.cdxj"
same_index "$tmp/plain.warc" "wa-fetch plain"
cp "$tmp/ours" "$tmp/plain.cdxj"
same_index "$tmp/crawl2.warc.gz" "wa-fetch with revisits"
cp "$tmp/ours" "$tmp/crawl2.cdxj"
like "$(grep -c '"mime":"warc/revisit","status":"304"' "$tmp/crawl2.cdxj")" '^[1-9]' \
	"the second crawl's 304 answers are revisits"
is "$(grep -F '{"url":"http://www.test:8080/page1.html",' "$tmp/crawl1.cdxj" | cut -d' ' -f1)" \
	"test:8080)/page1.html" "www. is cut, the port stands before the ')'"
is "$(grep -F '{"url":"http://docs.test:8080/catalog.xml",' "$tmp/crawl1.cdxj" | cut -d' ' -f1)" \
	"test,docs:8080)/catalog.xml" "host labels reversed, joined by ','"
is "$(grep -c '' "$tmp/crawl1.cdxj")" \
	"$(warcio_tsv "$tmp/crawl1.warc.gz" warc-type | grep -cx 'response\|revisit\|resource')" \
	"one line per response, revisit and resource record"
located "$tmp/crawl1.warc.gz" "$tmp/crawl1.cdxj" "wa-fetch gzip: offset and length cut out each record"
located "$tmp/plain.warc" "$tmp/plain.cdxj" "wa-fetch plain: offset and length cut out each record"
located "$tmp/crawl2.warc.gz" "$tmp/crawl2.cdxj" "revisits: offset and length cut out each record"

# Several files, stdin, -o, -n.
ok "two files and -o" wa-cdx -q -o "$tmp/both.cdxj" "$tmp/crawl1.warc.gz" "$tmp/crawl2.warc.gz"
same_file "$tmp/both.cdxj" "$(LC_ALL=C sort "$tmp/crawl1.cdxj" "$tmp/crawl2.cdxj" >"$tmp/both.want";
	echo "$tmp/both.want")" "two files: their lines merged in byte order"
wa-cdx -q -n crawl1.warc.gz - <"$tmp/crawl1.warc.gz" >"$tmp/stdin.cdxj"
same_file "$tmp/stdin.cdxj" "$tmp/crawl1.cdxj" "stdin with -n NAME: the same lines"

# (b) wget --warc-file against the same web, by address (an IPv4 key is
# reversed too), gzip and plain; wget's WARC 1.0 URIs are in <>.
addr=$(web_addr www.test)
(cd "$tmp" && wget -q --no-proxy -e robots=off -r -l 2 --warc-file=wget \
	"http://$addr:8080/" 2>/dev/null)
(cd "$tmp" && wget -q --no-proxy -e robots=off -r -l 1 --no-warc-compression \
	--warc-file=wget-plain -P plain "http://$addr:8080/" 2>/dev/null)
ok "wget wrote its WARCs" test -s "$tmp/wget.warc.gz" -a -s "$tmp/wget-plain.warc"
same_index "$tmp/wget.warc.gz" "wget gzip"
cp "$tmp/ours" "$tmp/wget.cdxj"
is "$(grep -c "^$(echo "$addr" | awk -F. '{ print $4 "," $3 "," $2 "," $1 }'):8080)/" "$tmp/wget.cdxj")" \
	"$(grep -c '"status"' "$tmp/wget.cdxj")" "wget: the address reversed, with its port"
like "$(grep -c '^metadata://' "$tmp/wget.cdxj")" '^[1-9]' "wget's resource records, keyed by their URI"
located "$tmp/wget.warc.gz" "$tmp/wget.cdxj" "wget gzip: offset and length cut out each record"
same_index "$tmp/wget-plain.warc" "wget plain"
located "$tmp/wget-plain.warc" "$tmp/ours" "wget plain: offset and length cut out each record"

# (c) warcio.js's own WARCs and testdata/cdx: every kind of record, keys
# with www2., upper case, query order, default ports, JSON escapes.
warcio_write "$tmp/warcio.warc.gz" && warcio_write "$tmp/warcio.warc"
same_index "$tmp/warcio.warc.gz" "warcio.js gzip"
same_index "$tmp/warcio.warc" "warcio.js plain"
for f in mixed.warc mixed.warc.gz; do
	cp "$TESTDATA/cdx/$f" "$tmp/$f"
	same_index "$tmp/$f" "testdata/cdx/$f"
	cp "$tmp/ours" "$tmp/$f.cdxj"
	located "$tmp/$f" "$tmp/ours" "testdata/cdx/$f: offset and length cut out each record"
done
is "$(cut -d' ' -f1 "$tmp/mixed.warc.gz.cdxj" | tr '\n' ' ')" \
"1,0,0,127:8080)/x?a&b com,example)/ com,example)/ com,example)/%22q%22/x com,example)/a%2fb?y&z=1 \
com,example)/file.txt com,example)/file.txt com,example)/same com,example:8081)/q?a=1&b=2 \
dns:example.com org,example,www)/old " "testdata/cdx: the keys known by hand"
is "$(grep -o '"mime":"[^"]*"' "$tmp/mixed.warc.cdxj" | sort | uniq -c | sed 's/^ *//' | tr '\n' '|')" \
	'1 "mime":"Text/HTML"|1 "mime":"application/json"|1 "mime":"image/png"|1 "mime":"text/dns"|1 "mime":"text/html"|2 "mime":"text/plain"|1 "mime":"text/plain; charset=us-ascii"|2 "mime":"warc/revisit"|' \
	"testdata/cdx: the HTTP media type as sent, a WARC Content-Type whole, revisits"
for f in gzip-members plain-mode0 plain-mode1; do
	tail -c +2 "$TESTDATA/fuzz/warc/$f" >"$tmp/seed-$f"
	same_index "$tmp/seed-$f" "testdata/fuzz/warc/$f"
done

# A block larger than wa-cdx keeps in memory (64 KiB), plain and gzip
# per record, between two small ones.  Their HTTP heads have a field:
# without one, warcio.js reads 2 bytes past the block in a plain file and
# counts them in the length.
{ printf 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n'; head -c 300000 /dev/zero | tr '\0' a; } \
	>"$tmp/big.block"
for i in 1 2 3; do
	b=$tmp/big.block
	[ $i = 2 ] || { printf 'HTTP/1.1 204 No Content\r\nServer: t\r\n\r\n' >"$tmp/small.block"; b=$tmp/small.block; }
	printf 'WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2024-05-06T07:08:0%sZ\r\nWARC-Target-URI: http://example.com/%s\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: %s\r\n\r\n' \
		$i $i "$(wc -c <"$b" | tr -d ' ')" >"$tmp/rec$i"
	cat "$b" >>"$tmp/rec$i"
	printf '\r\n\r\n' >>"$tmp/rec$i"
done
cat "$tmp/rec1" "$tmp/rec2" "$tmp/rec3" >"$tmp/large.warc"
for i in 1 2 3; do gzip -c "$tmp/rec$i"; done >"$tmp/large.warc.gz"
for f in large.warc large.warc.gz; do
	same_index "$tmp/$f" "a 300 kB block, $f"
	located "$tmp/$f" "$tmp/ours" "a 300 kB block, $f: offset and length cut out each record"
done

# A header value that is no UTF-8: U+FFFD for its bad bytes, the rest kept,
# control characters escaped as JSON escapes them; the length counts the
# 115 bytes from "WARC/" to the end of the block.
printf 'WARC/1.1\r\nWARC-Type: resource\r\nWARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: urn:x:\303\251\374\001\r\nContent-Length: 1\r\n\r\nx\r\n\r\n' \
	>"$tmp/utf8.warc"
is "$(wa-cdx -q "$tmp/utf8.warc")" \
	"$(printf 'urn:x:\303\251\374\001 20240506070809 {"url":"urn:x:\303\251\357\277\275\\u0001","length":"115","offset":"0","filename":"utf8.warc"}')" \
	"bytes that are no UTF-8 in the JSON as U+FFFD, controls escaped"

# A gzip file of one member for all records: no offset finds a record.
gzip -dc "$tmp/mixed.warc.gz" | gzip >"$tmp/one.warc.gz"
exits 1 "one gzip member for all records: exit 1" wa-cdx -q "$tmp/one.warc.gz"
is "$(cat "$tmp/stderr")" "wa-cdx: $tmp/one.warc.gz: offset 0: the record shares its gzip member with others, so no offset finds it (index the decompressed file): not indexed
wa-cdx: $tmp/one.warc.gz: 10 more records share a gzip member: not indexed" \
	"the first reported with its offset, the others counted"

# Damage.  A cut file: the records before the cut are indexed, the cut one
# is reported at its member's offset; exit 1, -o not written, the old
# index kept; with -k, -o holds the good records.  The cut falls inside the
# middle record's member (half the file could fall between two members).
cut=$(awk '{ o = $0; sub(/.*"offset":"/, "", o); sub(/".*/, "", o)
	l = $0; sub(/.*"length":"/, "", l); sub(/".*/, "", l); print o + int(l / 2) }' \
	"$tmp/crawl1.cdxj" | sort -n | awk '{ c[NR] = $0 } END { print c[int((NR + 1) / 2)] }')
head -c "$cut" "$tmp/crawl1.warc.gz" >"$tmp/cut.warc.gz"
awk -v h="$cut" '{ o = $0; sub(/.*"offset":"/, "", o); sub(/".*/, "", o)
	l = $0; sub(/.*"length":"/, "", l); sub(/".*/, "", l) } o + l <= h' "$tmp/crawl1.cdxj" |
	sed 's/"crawl1.warc.gz"/"cut.warc.gz"/' >"$tmp/cut.want"
echo good >"$tmp/out.cdxj"
exits 1 "a cut file: exit 1" wa-cdx -q -o "$tmp/out.cdxj" "$tmp/cut.warc.gz"
like "$(cat "$tmp/stderr")" "^wa-cdx: $tmp/cut.warc.gz: offset [0-9]+: truncated" \
	"reported with the file and an offset"
is "$(cat "$tmp/out.cdxj")" good "the old -o output stays"
is "$(ls -a "$tmp" | grep -c '^\.out')" 0 "no temporary file left"
exits 1 "a cut file on stdout: exit 1" wa-cdx -q "$tmp/cut.warc.gz"
same_file "$tmp/stdout" "$tmp/cut.want" "the records before the cut's member on stdout"
ok "with -k: exit 0" wa-cdx -q -k -o "$tmp/out.cdxj" "$tmp/cut.warc.gz"
same_file "$tmp/out.cdxj" "$tmp/cut.want" "with -k: the same in -o"

# Garbage between two members: reported at its offset, every record still
# indexed, the ones after it at their new offsets.
third=$(awk '{ o = $0; sub(/.*"offset":"/, "", o); sub(/".*/, "", o); print o }' \
	"$tmp/crawl1.cdxj" | sort -n | sed -n 3p)
{ head -c "$third" "$tmp/crawl1.warc.gz"; printf 'garbage\n'; tail -c +$((third + 1)) "$tmp/crawl1.warc.gz"; } \
	>"$tmp/garbage.warc.gz"
exits 1 "garbage between members: exit 1" wa-cdx -q -o "$tmp/garbage.cdxj" "$tmp/garbage.warc.gz"
is "$(cat "$tmp/stderr")" "wa-cdx: $tmp/garbage.warc.gz: offset $third: not a gzip member: skipped to the next one" \
	"reported at the garbage's offset"
ok "with -k: exit 0" wa-cdx -q -k -o "$tmp/garbage.cdxj" "$tmp/garbage.warc.gz"
is "$(cut -d' ' -f1,2 "$tmp/garbage.cdxj")" "$(cut -d' ' -f1,2 "$tmp/crawl1.cdxj")" \
	"every record indexed"
located "$tmp/garbage.warc.gz" "$tmp/garbage.cdxj" "their offsets and lengths cut them out"

# Usage.
exits 2 "no file: usage error" wa-cdx
echo good >"$tmp/out.cdxj"
exits 1 "a file that cannot be opened: exit 1" wa-cdx -o "$tmp/out.cdxj" "$tmp/nothing"
is "$(cat "$tmp/out.cdxj")" good "and -o is not written"
is "$(wa-cdx -h | wc -l | tr -d ' ')" "$(wa-cdx -h | head -24 | wc -l | tr -d ' ')" "-h fits 24 lines"

# CDX=yes in the cycle: index.cdxj, the index of its WARC files (of
# names PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz).
if command -v flock >/dev/null && "$PY" -c 'import networkx' 2>/dev/null; then
	s=$tmp/state
	mkdir "$s" && cp "$TESTDATA/web/seeds.txt" "$s/seeds.tsv"
	ok "wa-cycle with CDX=yes" wa-cycle --now 1800000000 "$s" WAIT=0 ALLOW_PRIVATE=1 G=100 \
		CDX=yes "RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
	c=$s/cycle-1
	set -- "$c"/wa-*.warc.gz
	is "$#" 1 "the cycle wrote one WARC file"
	same_index "$1" "the cycle's WARC"
	same_file "$c/index.cdxj" "$tmp/ours" "index.cdxj is wa-cdx's index of it"
	exits 2 "CDX=maybe: bad settings" wa-cycle "$s" CDX=maybe
	like "$(cat "$tmp/stderr")" "CDX is yes or no, not 'maybe'" "named"
fi
done_testing
