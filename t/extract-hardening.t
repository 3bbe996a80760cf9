#!/bin/sh
# wa-extract on hostile input: NUL bytes in HTML, invalid numeric
# character references, payload digests of other forms than base32 SHA-1,
# and records too large to be kept: a 1 GiB one (--max-size read before
# the block is buffered), a chain of content codings (capped as one is), a
# Content-Length past 2^64.
#
# The expected links are those of the HTML standard's tokenizer (U+0000
# read as U+FFFD in names and values; the numeric character reference end
# state: U+FFFD for zero, surrogates and values past U+10FFFF, windows-1252
# for U+0080..U+009F), checked against Python's html.unescape, which
# implements the same rules, and percent-encoded as the URL standard does
# (UTF-8).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_all "needs python3"

tab=$(printf '\t')
# warc URI BODY-FILE [HTTP-FIELDS [WARC-FIELD]]: a WARC with one response
# record of an HTTP 200 answer with BODY-FILE.
warc() {
	{
		printf 'HTTP/1.1 200 OK\r\n'
		printf '%s\n' "${3:-Content-Type: text/html; charset=utf-8}" | sed 's/$/\r/'
		printf '\r\n'
		cat "$2"
	} >"$tmp/block"
	printf 'WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n' "$1"
	printf 'WARC-Date: 2026-01-02T03:04:05Z\r\n'
	printf 'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n'
	[ -n "${4:-}" ] && printf '%s\r\n' "$4"
	printf 'Content-Type: application/http; msgtype=response\r\n'
	printf 'Content-Length: %s\r\n\r\n' "$(wc -c <"$tmp/block")"
	cat "$tmp/block"
	printf '\r\n\r\n'
}
# dsts WARC [OPTIONS]: the targets of its links, one a line.
dsts() { w=$1; shift; wa-extract -q "$@" "$w" | cut -f 2; }

## NUL bytes: libxml2's HTML parser took one for the end of the page.
U=http://example.com
# A NUL in each place of a tag, then 1000 links that must all be found:
# a page for each, in one WARC.
places='tag name:<a\0b href="/x">
attribute name:<a hr\0ef="/x">
unquoted value:<a href=/x\0>
end tag:</p\0>
text:<p>a\0b</p>
comment:<!-- \0 -->
script:<script>\0</script>
title:<title>\0</title>'
: >"$tmp/nul.warc"
i=0
while IFS= read -r place; do
	i=$((i + 1))
	{
		printf '<html><body><a href="/first">f</a>'
		printf "${place#*:}"
		seq 1000 | sed 's|.*|<a href="/l/&">&</a>|'
		printf '</body></html>'
	} >"$tmp/page"
	warc "$U/$i" "$tmp/page" >>"$tmp/nul.warc"
done <<END
$places
END
wa-extract -q "$tmp/nul.warc" >"$tmp/links"
i=0
while IFS= read -r place; do
	i=$((i + 1))
	is "$(grep -c "^$U/$i$tab.*/l/" "$tmp/links")" 1000 \
		"NUL byte in the ${place%%:*}: the 1000 links after it are found"
done <<END
$places
END
# In a value the standard reads U+FFFD, which a URL path holds as the
# percent-encoded UTF-8 bytes EF BF BD; so too on a page read as
# ISO-8859-1, where no byte is U+FFFD.
printf '<a href="/q\0r">q</a><a href="/after">a</a>' >"$tmp/page"
{
	warc "$U/utf-8" "$tmp/page"
	warc "$U/none" "$tmp/page" 'Content-Type: text/html'
	warc "$U/windows-1252" "$tmp/page" 'Content-Type: text/html; charset=windows-1252'
} >"$tmp/nul.warc"
wa-extract -q "$tmp/nul.warc" >"$tmp/links"
for c in utf-8 none windows-1252; do
	is "$(awk -F '\t' -v u="$U/$c" '$1 == u { printf "%s ", $2 }' "$tmp/links")" \
		"$U/q%EF%BF%BDr $U/after " "NUL in an href of a page in charset $c: U+FFFD"
done

## Numeric character references: the HTML standard's end state.
is "$(printf '<a href="/z?a=&#0;xyz">z</a>' >"$tmp/page"
	warc "$U/" "$tmp/page" >"$tmp/ref.warc"; dsts "$tmp/ref.warc")" \
	"$U/z?a=%EF%BF%BDxyz" "&#0; in an href is U+FFFD, not the end of the href"
# Zero, surrogates, past U+10FFFF (and far past), every reference to
# U+0080..U+009F, a valid one and some without their semicolon.
refs='&#0; &#x0000; &#xD800; &#xDFFF; &#55296; &#x110000; &#1114112; &#99999999999999999999; &#65; &#x41 &#0'
for i in $(seq 128 159); do refs="$refs &#$i; &#x$(printf %X "$i");"; done
: >"$tmp/page"
for r in $refs; do printf '<a href="/r?v=%s!">r</a>\n' "$r" >>"$tmp/page"; done
want=$(python3 - $refs <<'END'
import html, sys, urllib.parse
seen = set()
for ref in sys.argv[1:]:
    url = "http://example.com/r?v=" + urllib.parse.quote(html.unescape(ref + "!"), safe="!")
    if url not in seen:
        seen.add(url)
        print(url)
END
)
for charset in utf-8 windows-1252; do
	warc "$U/$charset" "$tmp/page" "Content-Type: text/html; charset=$charset"
done >"$tmp/ref.warc"
wa-extract -q "$tmp/ref.warc" >"$tmp/links"
for charset in utf-8 windows-1252; do
	is "$(awk -F '\t' -v u="$U/$charset" '$1 == u { print $2 }' "$tmp/links")" "$want" \
		"$charset page: each reference as html.unescape reads it ($(echo "$want" | wc -l) links)"
done
# C0 controls and noncharacters are kept by the standard (html.unescape
# drops them).
printf '<a href="/c&#1;d&#x1F;e&#x10FFFF;">c</a><a href="/after">a</a>' >"$tmp/page"
warc "$U/" "$tmp/page" >"$tmp/ref.warc"
is "$(dsts "$tmp/ref.warc" | tr '\n' ' ')" "$U/c%01d%1Fe%F4%8F%BF%BF $U/after " \
	"&#1;, &#x1F; and &#x10FFFF; are kept, percent-encoded, not the end of the href"

## Payload digests: the record's, whole.
printf '<a href="/x">x</a>' >"$tmp/page"
sha1hex=$(openssl dgst -sha1 -r "$tmp/page" | cut -c 1-40)
sha256hex=$(openssl dgst -sha256 -r "$tmp/page" | cut -c 1-64)
sha1b32=$(openssl dgst -sha1 -binary "$tmp/page" | base32)
: >"$tmp/dig.warc"
for d in "sha1:$sha1hex" "sha256:$sha256hex" "sha1:$sha1b32"; do
	warc "$U/${d%%:*}/${#d}" "$tmp/page" '' "WARC-Payload-Digest: $d" >>"$tmp/dig.warc"
done
wa-extract -q -p "$tmp/pages" "$tmp/dig.warc" >/dev/null
for d in "sha1:$sha1hex" "sha256:$sha256hex" "sha1:$sha1b32"; do
	is "$(awk -F '\t' -v u="$U/${d%%:*}/${#d}" '$1 == u { print $4 }' "$tmp/pages")" "$d" \
		"payload digest ${d%%:*} of ${#d} characters kept whole"
done
warc "$U/" "$tmp/page" >"$tmp/dig.warc"
wa-extract -q -p "$tmp/pages" "$tmp/dig.warc" >/dev/null
is "$(cut -f 4 "$tmp/pages")" "sha1:$sha1b32" "no payload digest: the SHA-1 in base32"

## Records larger than --max-size: never held whole.
# gzmembers N: N gzip members of 1 MiB of zeros each, on stdout.
head -c 1048576 /dev/zero | gzip -n >"$tmp/z1m.gz"
gzmembers() { i=0; while [ $i -lt "$1" ]; do cat "$tmp/z1m.gz"; i=$((i + 1)); done; }
# bigwarc TYPE MIB: a WARC.gz with a response record of MIB MiB (block),
# a body of zeros typed TYPE, then the record of $tmp/page.
bigwarc() {
	h="HTTP/1.1 200 OK
Content-Type: $1
"
	{
		printf 'WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: %s/big\r\n' "$U"
		printf 'WARC-Date: 2026-01-02T03:04:05Z\r\nContent-Length: %s\r\n\r\n%s\n' \
		    $(($2 << 20)) "$h"
	} | gzip -n
	gzmembers $(($2 - 1))
	head -c $((1048576 - ${#h} - 1)) /dev/zero | gzip -n
	printf '\r\n\r\n' | gzip -n
	warc "$U/after" "$tmp/page" | gzip -n
}
MB=1024	# kB
! under_asan || MB=$((3 * MB))
printf '<a href="/x">x</a>' >"$tmp/page"
if under_valgrind; then
	echo "# skipped under valgrind: a record of 1 GiB"
else
	# 1 GiB is the largest block the reader takes; it is 1 MB gzipped.
	bigwarc text/html 1024 >"$tmp/big.warc.gz"
	/usr/bin/time -f %M -o "$tmp/rss" wa-extract -p "$tmp/pages" "$tmp/big.warc.gz" \
	    >"$tmp/links" 2>"$tmp/err"
	is "$?:$(cut -f 1,2,4,5 "$tmp/pages" | tr '\t\n' ', ')" \
		"0:$U/big,error,-,0 $U/after,html,sha1:$(openssl dgst -sha1 -binary "$tmp/page" | base32),1 " \
		"a record of 1 GiB of HTML: a page of type error, the next one read, exit 0"
	like "$(cat "$tmp/err")" "offset 0: $U/big: body larger than --max-size" \
		"... reported with its offset"
	rss=$(tail -n 1 "$tmp/rss")
	ok "... in under 32 MB of memory ($rss kB), not the record's 1 GiB" \
		test "$rss" -lt $((32 * MB))
fi
# Under 1M: the head kept types the page (video: other, no error), the
# rest is passed; a block that ends before its Content-Length is a
# truncated record, read no further than the file.
bigwarc video/mp4 4 >"$tmp/v.warc.gz"
wa-extract -q --max-size 1M -p "$tmp/pages" "$tmp/v.warc.gz" >/dev/null
is "$?:$(cut -f 1,2 "$tmp/pages" | tr '\t\n' ', ')" "0:$U/big,other $U/after,html " \
	"a video over --max-size: a page of type other"
bigwarc text/html 4 | head -c 3000 >"$tmp/cut.warc.gz"
exits 1 "a record cut short in a gzip member: exit 1" \
	wa-extract -q --max-size 1M -p "$tmp/pages" "$tmp/cut.warc.gz"
like "$(cat "$tmp/stderr")" "cut.warc.gz: offset [0-9]+: truncated gzip member" \
	"... reported as the member cut short"
bigwarc text/html 4 | gzip -dc | head -c 3000000 >"$tmp/cut.warc"
exits 1 "a record cut short: exit 1" wa-extract -q --max-size 1M -p "$tmp/pages" "$tmp/cut.warc"
like "$(cat "$tmp/stderr")" "cut.warc: offset 0: truncated record: Content-Length 4194304 but 2999[0-9]+ bytes left" \
	"... reported as a truncated record"

## gzip members with a header CRC (FHCRC, RFC 1952 sec. 2.3.1): checked,
## a wrong one is a bad member; a member larger than the reader's input
## buffer of 1 MiB (random bytes, which do not compress) is read whole.
printf '<a href="/y">y</a>' >"$tmp/page2"
warc "$U/a" "$tmp/page" >"$tmp/a.warc"
warc "$U/b" "$tmp/page2" >"$tmp/b.warc"
head -c 3000000 /dev/urandom >"$tmp/noise"
warc "$U/noise" "$tmp/noise" 'Content-Type: application/octet-stream' >"$tmp/n.warc"
gzip_hcrc() {	# FILE GOOD|BAD: one gzip member with a header CRC
	python3 - "$1" "$2" <<'PY'
import sys, zlib, struct
data = open(sys.argv[1], 'rb').read()
head = bytes([0x1f, 0x8b, 8, 2]) + bytes(4) + bytes([0, 255])
crc16 = zlib.crc32(head) & 0xffff
if sys.argv[2] == 'BAD':
	crc16 ^= 0x5555
c = zlib.compressobj(6, zlib.DEFLATED, -15)
sys.stdout.buffer.write(head + struct.pack('<H', crc16) + c.compress(data) +
    c.flush() + struct.pack('<II', zlib.crc32(data), len(data) & 0xffffffff))
PY
}
{ gzip_hcrc "$tmp/a.warc" GOOD; gzip -n <"$tmp/b.warc"; } >"$tmp/hcrc.warc.gz"
wa-extract -p "$tmp/pages" "$tmp/hcrc.warc.gz" >"$tmp/links" 2>"$tmp/err"
is "$?:$(cut -f 1 "$tmp/pages" | tr '\n' ' ')" "0:$U/a $U/b " \
	"a gzip member with a right header CRC: read"
{ gzip -n <"$tmp/a.warc"; gzip_hcrc "$tmp/b.warc" BAD; gzip -n <"$tmp/a.warc"; } >"$tmp/hcrc.warc.gz"
wa-extract -k -p "$tmp/pages" "$tmp/hcrc.warc.gz" >"$tmp/links" 2>"$tmp/err"
is "$?:$(cut -f 1 "$tmp/pages" | tr '\n' ' ')" "0:$U/a $U/a " \
	"a gzip member with a wrong header CRC: skipped, the others read (-k)"
like "$(cat "$tmp/err")" "hcrc.warc.gz: offset $(gzip -n <"$tmp/a.warc" | wc -c): bad gzip member \\(header crc mismatch\\)" \
	"... reported with its offset"
{ gzip -n <"$tmp/a.warc"; gzip -n <"$tmp/n.warc"; gzip -n <"$tmp/b.warc"; } >"$tmp/n.warc.gz"
wa-extract -p "$tmp/pages" "$tmp/n.warc.gz" >"$tmp/links" 2>"$tmp/err"
is "$?:$(cut -f 1,2,5 "$tmp/pages" | tr '\t\n' ', ')" \
	"0:$U/a,html,1 $U/noise,other,0 $U/b,html,1 " \
	"a gzip member of 3 MB between two small ones: all three read"
is "$(cut -f 2 "$tmp/links" | tr '\n' ' ')" "$U/x $U/y " "... and the links of both pages"

## A chain of content codings is capped as one coding is.
head -c 67108864 /dev/zero | gzip -n | gzip -n >"$tmp/gzgz"
warc "$U/gzgz" "$tmp/gzgz" 'Content-Type: text/html
Content-Encoding: gzip, gzip' >"$tmp/gzgz.warc"
/usr/bin/time -f %M -o "$tmp/rss" wa-extract -q --max-size 1M -p "$tmp/pages" "$tmp/gzgz.warc" >/dev/null 2>"$tmp/err"
is "$?:$(cut -f 2 "$tmp/pages")" "0:error" "gzip, gzip of 64 MiB over --max-size 1M: a page of type error"
like "$(cat "$tmp/err")" "decoded body larger than the limit" "... for its decoded size"
rss=$(tail -n 1 "$tmp/rss")
under_valgrind ||
	ok "... in under 32 MB of memory ($rss kB)" test "$rss" -lt $((32 * MB))
if command -v nginx-site >/dev/null && command -v nginx >/dev/null; then
	a=$(t_addr 1)
	mkdir -p "$tmp/site/gzgz"
	cp "$tmp/gzgz" "$tmp/site/gzgz/zeros.html"
	nginx_start one "$a" 8080 "$tmp/site" '
	location /gzgz/ { default_type text/html; add_header Content-Encoding "gzip, gzip"; }'
	echo http://one.test:8080/gzgz/zeros.html >"$tmp/urls"
	wa-fetch --resolve "one.test:8080:$a" --allow-private -w 0 -q --max-size 1M \
	    -o "$tmp/f.warc.gz" "$tmp/urls" >"$tmp/log" 2>"$tmp/err"
	is "$(cut -f 3,5 "$tmp/log")" "too-large	1048576" \
		"wa-fetch: gzip, gzip stops at --max-size decoded bytes, as gzip does"
else
	echo "# skipped: no nginx for the wa-fetch check of gzip, gzip"
fi

## Content-Length past 2^64: refused, not trusted; the records after read.
{
	warc "$U/a" "$tmp/page"
	warc "$U/b" "$tmp/page" | sed 's/^Content-Length: .*/Content-Length: 100000000000000000000000000\r/'
	warc "$U/c" "$tmp/page"
} >"$tmp/cl.warc"
exits 1 "Content-Length 10^26: exit 1" wa-extract -q "$tmp/cl.warc"
like "$(cat "$tmp/stderr")" 'cl.warc: offset [0-9]+: bad Content-Length "100000000000000000000000000"' \
	"... reported with its offset"
wa-extract -q -k -p "$tmp/pages" "$tmp/cl.warc" >/dev/null 2>&1
is "$(cut -f 1 "$tmp/pages" | tr '\n' ' ')" "$U/a $U/c " "... the records around it read"

done_testing
