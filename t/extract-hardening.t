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
# A NUL in each place of a tag, then 1000 links that must all be found.
for place in 'tag name:<a\0b href="/x">' 'attribute name:<a hr\0ef="/x">' \
    'unquoted value:<a href=/x\0>' 'end tag:</p\0>' 'text:<p>a\0b</p>' \
    'comment:<!-- \0 -->' 'script:<script>\0</script>' 'title:<title>\0</title>'; do
	name=${place%%:*}
	{
		printf '<html><body><a href="/first">f</a>'
		printf "${place#*:}"
		seq 1000 | sed 's|.*|<a href="/l/&">&</a>|'
		printf '</body></html>'
	} >"$tmp/page"
	warc "$U/" "$tmp/page" >"$tmp/nul.warc"
	is "$(dsts "$tmp/nul.warc" | grep -c '/l/')" 1000 \
		"NUL byte in the $name: the 1000 links after it are found"
done
# In a value the standard reads U+FFFD, which a URL path holds as the
# percent-encoded UTF-8 bytes EF BF BD; so too on a page read as
# ISO-8859-1, where no byte is U+FFFD.
printf '<a href="/q\0r">q</a><a href="/after">a</a>' >"$tmp/page"
warc "$U/" "$tmp/page" >"$tmp/nul.warc"
is "$(dsts "$tmp/nul.warc" | tr '\n' ' ')" "$U/q%EF%BF%BDr $U/after " \
	"NUL in an href of a UTF-8 page: U+FFFD"
warc "$U/" "$tmp/page" 'Content-Type: text/html' >"$tmp/nul.warc"
is "$(dsts "$tmp/nul.warc" | tr '\n' ' ')" "$U/q%EF%BF%BDr $U/after " \
	"NUL in an href of a page naming no charset: U+FFFD"
warc "$U/" "$tmp/page" 'Content-Type: text/html; charset=windows-1252' >"$tmp/nul.warc"
is "$(dsts "$tmp/nul.warc" | tr '\n' ' ')" "$U/q%EF%BF%BDr $U/after " \
	"NUL in an href of a windows-1252 page: U+FFFD"

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
for charset in utf-8 windows-1252; do
	warc "$U/" "$tmp/page" "Content-Type: text/html; charset=$charset" >"$tmp/ref.warc"
	got=$(wa-extract -q --ignore-robots-tags "$tmp/ref.warc" | cut -f 2)
	want=$(python3 - $refs <<-'END'
	import html, sys, urllib.parse
	seen = set()
	for ref in sys.argv[1:]:
	    url = "http://example.com/r?v=" + urllib.parse.quote(
	        html.unescape(ref + "!"), safe="!")
	    if url not in seen:
	        seen.add(url)
	        print(url)
	END
	)
	is "$got" "$want" "$charset page: each reference as html.unescape reads it ($(echo "$want" | wc -l) links)"
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
for d in "sha1:$sha1hex" "sha256:$sha256hex" "sha1:$sha1b32"; do
	warc "$U/" "$tmp/page" '' "WARC-Payload-Digest: $d" >"$tmp/dig.warc"
	wa-extract -q -p "$tmp/pages" "$tmp/dig.warc" >/dev/null
	is "$(cut -f 4 "$tmp/pages")" "$d" "payload digest ${d%%:*} of ${#d} characters kept whole"
done
warc "$U/" "$tmp/page" >"$tmp/dig.warc"
wa-extract -q -p "$tmp/pages" "$tmp/dig.warc" >/dev/null
is "$(cut -f 4 "$tmp/pages")" "sha1:$sha1b32" "no payload digest: the SHA-1 in base32"

done_testing
