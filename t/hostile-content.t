#!/bin/sh
# Hostile servers and hostile content, on t/fault-server.py: a
# robots.txt that never ends, 10^5 links in one page, 50 MB of nested
# tags (HTML and XML) and stray end tags under deep nesting, the billion
# laughs and a quadratic entity blowup, URLs of 100 kB (input list,
# Location, href, links TSV) and invalid UTF-8 everywhere (input list,
# robots.txt, Location, hrefs and text, charset).
# Each case is a run of wa-fetch on the hostile URL and a normal page
# (/normal), then of wa-extract on what it fetched: each run ends within
# its timeout and under its memory bound, what is refused or cut is
# logged with its reason, and the normal page is fetched and extracted.
#
# Every tool run is wrapped in timeout(1) and GNU time(1); the bounds on
# peak RSS are: wa-extract and wa-fetch under 256 MB on the 50 MB pages,
# 128 MB elsewhere; three times that for an ASan build (SANITIZE=1), not
# checked under valgrind.  When HOSTILE_REPORT names a file, each run
# appends one row to it (for scripts/bench-reliability):
#   case<TAB>tool<TAB>seconds<TAB>peak_rss_kb<TAB>outcome
# where outcome is the status or reason the tool logged.  Under valgrind
# the sizes shrink (10^3 links, 1 MB of nesting) and the cases that only
# check libxml2 or wa-linkmat are left out.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip_all "needs GNU time as /usr/bin/time"
fault_start

if under_valgrind; then
	NLINKS=1000 NEST=1000000 NSTRAY=1000 LIMIT=600
else
	NLINKS=100000 NEST=50000000 NSTRAY=200000 LIMIT=120
fi
F=http://fault.test:8080
MB=1024	# kB
# AddressSanitizer's shadow memory and quarantine triple the footprint.
! under_asan || MB=$((3 * MB))

# measure CASE TOOL RSS_MB CMD...: runs CMD under timeout and GNU time,
# stdout to $tmp/out, stderr to $tmp/err; checks that it ended in time
# and under RSS_MB, exiting 0; sets m_rc, m_secs, m_kb.
measure() {
	m_case=$1 m_tool=$2 m_bound=$3; shift 3
	/usr/bin/time -f '%e %M' -o "$tmp/time" timeout "$LIMIT" "$@" \
	    >"$tmp/out" 2>"$tmp/err"
	m_rc=$?
	read -r m_secs m_kb <<-END
	$(tail -n 1 "$tmp/time")
	END
	# 124: timeout; 98: ASan or UBSan; 99: valgrind.
	is "$m_rc" 0 "$m_case: $m_tool ended within ${LIMIT}s and exited 0 (${m_secs}s)"
	if ! under_valgrind; then
		ok "$m_case: $m_tool peak RSS ${m_kb} kB < $((m_bound * MB / 1024)) MB" \
		    [ "$m_kb" -lt $((m_bound * MB)) ]
	fi
}

# report OUTCOME: the row of the last measured run.
report() {
	[ -z "${HOSTILE_REPORT:-}" ] ||
		printf '%s\t%s\t%s\t%s\t%s\n' "$m_case" "$m_tool" "$m_secs" "$m_kb" \
		    "$1" >>"$HOSTILE_REPORT"
}

# fetch CASE RSS_MB URL... [-- OPTIONS]: the URLs and $F/normal into
# $tmp/CASE.warc.gz; the log in $tmp/CASE.log, stderr in $tmp/CASE.ferr.
fetch() {
	f_case=$1 f_bound=$2; shift 2
	: >"$tmp/$f_case.urls"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		printf '%s\n' "$1" >>"$tmp/$f_case.urls"
		shift
	done
	[ $# -gt 0 ] && shift
	echo "$F/normal" >>"$tmp/$f_case.urls"
	measure "$f_case" wa-fetch "$f_bound" wa-fetch --allow-private -q -w 0 \
	    $FAULT_RESOLVE --timeout 30 -o "$tmp/$f_case.warc.gz" "$@" "$tmp/$f_case.urls"
	cp "$tmp/out" "$tmp/$f_case.log"
	cp "$tmp/err" "$tmp/$f_case.ferr"
	is "$(awk -F '\t' -v u="$F/normal" '$1 == u { print $3 }' "$tmp/$f_case.log")" 200 \
		"$f_case: the normal page is fetched"
}

# extract CASE RSS_MB: wa-extract on $tmp/CASE.warc.gz; links in
# $tmp/CASE.links, pages in $tmp/CASE.pages, stderr in $tmp/CASE.xerr.
extract() {
	measure "$1" wa-extract "$2" wa-extract -q -p "$tmp/$1.pages" "$tmp/$1.warc.gz"
	cp "$tmp/out" "$tmp/$1.links"
	cp "$tmp/err" "$tmp/$1.xerr"
	is "$(awk -F '\t' -v u="$F/normal" '$1 == u { print $2 }' "$tmp/$1.links")" "$F/ok" \
		"$1: the normal page's link is extracted"
}

# why CASE: what wa-extract said of its pages, reasons only, on one line.
why() { sed 's/^.*offset [0-9]*: [^ ]*: //' "$tmp/$1.xerr" | paste -sd ';' -; }
# status URL CASE: the status and robots columns of URL's fetch log row.
status() { awk -F '\t' -v u="$1" '$1 == u { print $3, $11 }' "$tmp/$2.log"; }
# links PAGE CASE: the targets of PAGE, on one line.
links() { awk -F '\t' -v u="$1" '$1 == u { printf "%s ", $2 }' "$tmp/$2.links"; }
# page PAGE CASE: type and out-degree of PAGE in the pages stream.
page() { awk -F '\t' -v u="$1" '$1 == u { print $2, $5 }' "$tmp/$2.pages"; }
# valid_utf8 FILE: whether FILE is all UTF-8.
valid_utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; }

# 1. robots.txt that never ends: wa-fetch reads its first 500 KiB.
E=http://robots-endless.test:8080
fetch robots-endless 128 $E/early $E/ok
is "$(status $E/early robots-endless)" "robots disallow" "robots-endless: a rule at its start is obeyed"
is "$(status $E/ok robots-endless)" "200 allow" "robots-endless: the others are allowed"
is "$(zcat "$tmp/robots-endless.warc.gz" | grep -a -c '^WARC-Truncated: length')" 1 \
	"robots-endless: its record is marked WARC-Truncated: length"
report "robots.txt cut at 512000 bytes (WARC-Truncated: length); /early robots"

# 2. 10^5 links in one page.
fetch links 128 $F/links/$NLINKS
report "$(status $F/links/$NLINKS links)"
extract links 128
is "$(page $F/links/$NLINKS links)" "html $NLINKS" "links: the page gives $NLINKS links"
awk -F '\t' -v u="$F/links/$NLINKS" '$1 == u { print $2 }' "$tmp/links.links" >"$tmp/targets"
is "$(sort -u "$tmp/targets" | wc -l)" $NLINKS "links: all distinct"
is "$(head -n 1 "$tmp/targets") $(tail -n 1 "$tmp/targets")" "$F/l/0 $F/l/$((NLINKS - 1))" \
	"links: in document order, /l/0 first, /l/$((NLINKS - 1)) last"
report "html, $NLINKS links"

# 3. 50 MB of nested tags.  The body is 91 bytes of head and tail and
# 11 bytes a level (server header).  HTML in UTF-8 is read by the HTML
# tokenizer, which keeps no stack of open elements (but inside svg and
# math): however deep, the page is read to its end, in time linear in its
# size; XML past 256 levels deep stops the parse, as libxml2 stops it.
fetch nested-html 256 $F/nested/$NEST -- --max-size 64M
is "$(awk -F '\t' '$3 == 200 { print $5 }' "$tmp/nested-html.log" | head -n 1)" \
	$((91 + (NEST - 91) / 11 * 11)) "nested-html: the whole body is fetched"
report "$(status $F/nested/$NEST nested-html)"
extract nested-html 256
is "$(page $F/nested/$NEST nested-html)" "html 3" "nested-html: a page of type html"
is "$(links $F/nested/$NEST nested-html)" "$F/first $F/deep $F/last " \
	"nested-html: read to its end, the link at the bottom and the one after"
is "$(cat "$tmp/nested-html.xerr")" "" "nested-html: nothing to report"
report "html, 3 links"

# Stray end tags under deep nesting took libxml2 quadratic time (200000
# of them: minutes); the tokenizer reads them as any end tag.
fetch stray 128 $F/stray/$NSTRAY
report "$(status $F/stray/$NSTRAY stray)"
extract stray 128
is "$(page $F/stray/$NSTRAY stray) $(links $F/stray/$NSTRAY stray)" "html 2 $F/first $F/last " \
	"stray: read to its end"
report "html, 2 links"

# Under valgrind the cases below that add no code path of ours to
# check are left out, to keep that run short.
if ! under_valgrind; then
	fetch nested-xml 256 $F/nested-xml/$NEST -- --max-size 64M
	report "$(status $F/nested-xml/$NEST nested-xml)"
	extract nested-xml 256
	is "$(page $F/nested-xml/$NEST nested-xml)" "error 1" "nested-xml: a page of type error"
	is "$(links $F/nested-xml/$NEST nested-xml)" "$F/first " "nested-xml: with the links before the cut"
	like "$(cat "$tmp/nested-xml.xerr")" "nested-xml/$NEST: line 2: Excessive depth in document: 256" \
		"nested-xml: libxml2's depth limit is reported"
	report "$(why nested-xml)"
fi

# 4. Entities: the billion laughs (3 GB), one of 100 kB referenced 20000
# times (2 GB).
fetch entities 128 $F/laughs $F/quadratic
report "$(status $F/laughs entities); $(status $F/quadratic entities)"
extract entities 128
is "$(page $F/laughs entities) $(links $F/laughs entities)" "error 1 $F/before " \
	"laughs: no expansion, the links before it kept"
like "$(cat "$tmp/entities.xerr")" "$F/laughs: line 14: Detected an entity reference loop" \
	"laughs: libxml2's refusal is reported"
is "$(page $F/quadratic entities) $(links $F/quadratic entities)" "error 1 $F/before " \
	"quadratic: stopped at the entity budget"
like "$(cat "$tmp/entities.xerr")" \
	"$F/quadratic: line 3: entities expand to more than 4194304 bytes: the rest is not parsed" \
	"quadratic: reported"
report "$(why entities)"

# 5. URLs of 100 kB.
LONG=$F/$(head -c 99977 /dev/zero | tr '\0' a)
fetch long-url 128 "$LONG" $F/long-redirect $F/long-link -- -L 2
is "$(awk -F '\t' '$3 == "bad-url" { print length($1), substr($1, 1, 27), substr($1, 8170) }' \
	"$tmp/long-url.log" | sed 's/[0-9a-f]\{16\}$/HASH/')" "8191 $F/aaaa aaa...HASH" \
	"long-url: a 100 kB input URL is logged bad-url, cut to 8172 bytes, '...' and a hash"
like "$(cat "$tmp/long-url.ferr")" "long-url.urls:1: bad URL: URL longer than 8192 bytes: $F/aaaa" \
	"long-url: with the reason and the line"
is "$(status $F/long-redirect long-url)" "bad-redirect allow" \
	"long-url: a 100 kB Location is not followed: bad-redirect"
is "$(grep -c "^req fault.test /l/" "$tmp/fault.out")" 0 "long-url: and not requested"
report "bad-url: URL longer than 8192 bytes; Location: bad-redirect"
extract long-url 128
is "$(links $F/long-link long-url)" "$F/first $F/last " "long-url: the links around a 100 kB href"
like "$(cat "$tmp/long-url.xerr")" \
	"$F/long-link: 1 links refused, the first: URL longer than 8192 bytes: /l/a{57}\.\.\.$" \
	"long-url: the 100 kB href is reported"
like "$(cat "$tmp/long-url.xerr")" "$F/long-redirect: 1 links refused, the first: Location longer than 8192 bytes" \
	"long-url: and so is the 100 kB Location"
report "$(why long-url)"

if ! under_valgrind; then
	printf 'http://a.test/\thttp://b.test/\ta\nhttp://a.test/\t%s\ta\nhttp://a.test/\thttp://c.test/\ta\n' \
		"$LONG" >"$tmp/long.tsv"
	measure long-url wa-linkmat 128 wa-linkmat -q -o "$tmp/graph" "$tmp/long.tsv"
	like "$(cat "$tmp/err")" "long.tsv:2: destination: URL longer than 8192 bytes" \
		"long-url: wa-linkmat rejects the row, naming its line"
	is "$(wa-linkmat --dump "$tmp/graph" | tr '\t\n' '> ')" \
		"http://a.test/>http://b.test/ http://a.test/>http://c.test/ " "long-url: and keeps the others"
	report "rejected: URL longer than 8192 bytes"
fi

# 6. Invalid UTF-8: in the input list, robots.txt, a Location, hrefs and
# text (U+FFFD in HTML declared UTF-8, a stop for XML), a bogus charset
# (ignored).
U=http://robots-utf8.test:8080
fetch utf8 128 "$(printf 'http://fault.test:8080/bad\377\376')" \
	"$(printf 'http://fa\377ult.test:8080/')" \
	$U/early $U/%ff%fe $U/ok "$F/redirect?to=/u/%ff%c3%28" \
	$F/bad-utf8 $F/bad-utf8-meta $F/bad-utf8.xml $F/bad-charset -- -L 1
is "$(status $F/bad%FF%FE utf8)" "404 allow" "utf8: invalid bytes of an input path are encoded"
like "$(cat "$tmp/utf8.ferr")" "utf8.urls:2: bad URL: bad host: http://fa" \
	"utf8: an input host with them is refused, with the reason"
is "$(awk -F '\t' '$3 == "bad-url" { print $1 }' "$tmp/utf8.log")" "http://fa%FFult.test:8080/" \
	"utf8: and logged bad-url with those bytes percent-encoded"
ok "utf8: the fetch log is UTF-8" valid_utf8 "$tmp/utf8.log"
is "$(status $U/early utf8),$(status $U/%FF%FE utf8),$(status $U/ok utf8)" \
	"robots disallow,robots disallow,200 allow" \
	"utf8: robots.txt rules with invalid bytes match their encoded form"
is "$(awk -F '\t' -v u="$F/redirect?to=/u/%FF%C3%28" '$1 == u { print $3, $10 }' "$tmp/utf8.log")" \
	"404 $F/u/%FF%C3(" "utf8: a Location with them is followed, encoded"
report "bad-url: bad host; others fetched"
extract utf8 128
# Python's UTF-8 decoder replaces invalid bytes by U+FFFD as browsers do
# (one for each maximal valid start of a sequence).
want=$("$PY" -c '
import sys, urllib.parse
sys.path.insert(0, sys.argv[1])
fs = __import__("fault-server")
for h in fs.BAD_UTF8_HREFS + [b"/u/last"]:
	print(sys.argv[2] + urllib.parse.quote(h.decode("utf-8", "replace"), safe="/()"), end=" ")
' "$T_DIR" "$F")
is "$(links $F/bad-utf8 utf8)" "$F/u/%EF%BF%BD $F/u/%EF%BF%BD( $F/u/%EF%BF%BDok $F/u/last " \
	"utf8: in HTML declared UTF-8 by HTTP, each invalid sequence is U+FFFD"
is "$(links $F/bad-utf8-meta utf8)" "$want" \
	"utf8: and by a meta element, the valid sequences after it read as UTF-8"
is "$(page $F/bad-utf8.xml utf8) $(links $F/bad-utf8.xml utf8)" "error 1 $F/u/first " \
	"utf8: XML stops at the first invalid byte, links before kept"
like "$(grep 'bad-utf8.xml' "$tmp/utf8.xerr")" \
	"line 2: Input is not proper UTF-8, indicate encoding ! Bytes: 0xFF" \
	"utf8: reported on one line"
is "$(links $F/bad-charset utf8)" "$F/u/caf%C3%A9 $F/u/last " \
	"utf8: a bogus charset is ignored (Latin-1 guessed)"
ok "utf8: the links stream is UTF-8" valid_utf8 "$tmp/utf8.links"
ok "utf8: the pages stream is UTF-8" valid_utf8 "$tmp/utf8.pages"
report "$(why utf8)"

if ! under_valgrind; then
	printf 'http://a.test/\thttp://b.test/\377\ta\nhttp://a.test/\thttp://c.test/\ta\n' >"$tmp/u8.tsv"
	measure utf8 wa-linkmat 128 wa-linkmat -q -o "$tmp/graph8" "$tmp/u8.tsv"
	like "$(cat "$tmp/err")" "u8.tsv:1: URL in column 2 has invalid UTF-8 at offset 14" \
		"utf8: wa-linkmat rejects a row with them, naming its line"
	is "$(wa-linkmat --dump "$tmp/graph8" | tr '\t\n' '> ')" "http://a.test/>http://c.test/ " \
		"utf8: and keeps the others"
	report "rejected: invalid UTF-8"
fi

done_testing
