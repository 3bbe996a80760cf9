#!/bin/sh
# wa-extract and the robots directives of pages: <meta name="robots">,
# rel="nofollow" on a and area, the X-Robots-Tag header (unprefixed, or
# prefixed by the agent --robots-agent names), each written out by hand
# in a WARC; then pages served by nginx with X-Robots-Tag and fetched by
# wa-fetch; --ignore-robots-tags undoes it all.
. "$(dirname "$0")/lib.sh"

tab=$(printf '\t')
n=0
# record URI BLOCK-FILE: a plain WARC/1.1 response record.
record() {
	n=$((n + 1))
	printf 'WARC/1.1\r\nWARC-Type: response\r\n'
	printf 'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n' "$n"
	printf 'WARC-Date: 2026-01-02T03:04:%02dZ\r\nWARC-Target-URI: %s\r\n' "$n" "$1"
	printf 'Content-Type: application/http; msgtype=response\r\n'
	printf 'Content-Length: %s\r\n\r\n' "$(wc -c <"$2")"
	cat "$2"
	printf '\r\n\r\n'
}
# page NAME HEADER-LINES BODY: a 200 response record for http://e.test/NAME.
page() {
	{
		printf 'HTTP/1.1 200 OK\r\n'
		printf '%s\n' "$2" | sed 's/$/\r/'
		printf '\r\n%s' "$3"
	} >"$tmp/block"
	record "http://e.test/$1" "$tmp/block"
}
H='Content-Type: text/html'
L='<a href="/x">x</a> <a href="/y">y</a> <area href="/z">'
{
	page meta-nofollow "$H" "<html><head><meta name=\"robots\" content=\"nofollow\"></head><body>$L</body></html>"
	page rel "$H" '<a href="/x" rel="nofollow">x</a> <a href="/y" rel="NoFollow noopener">y</a>
<a href="/z" rel="noopener">z</a> <area href="/w" rel="nofollow ugc">'
	page meta-noindex "$H" "<meta name=\"Robots\" content=\"NOINDEX, follow\">$L"
	page meta-none "$H" "<meta name=\"robots\" content=\"none\">$L"
	page meta-mybot "$H" "<meta name=\"mybot\" content=\"noindex nofollow\">$L"
	page xrt "$H
X-Robots-Tag: noindex" "$L"
	page xrt-other "$H
X-Robots-Tag: otherbot: noindex, nofollow" "$L"
	page xrt-ours "$H
X-Robots-Tag: otherbot: noindex
X-Robots-Tag: MyBot: nofollow" "$L"
	page xrt-two "$H
X-Robots-Tag: noarchive
x-robots-tag: unavailable_after: 25 Jun 2030 15:00:00 GMT, nofollow" "$L"
	page feed.xml "Content-Type: application/xml
X-Robots-Tag: noindex" '<?xml version="1.0"?><r xmlns:xl="http://www.w3.org/1999/xlink" xl:href="/doc.html"/>'
	page img.png "Content-Type: image/png
X-Robots-Tag: none" 'PNG'
	page plain "$H" "$L"
} >"$tmp/t.warc"

links() { awk -F '\t' -v p="http://e.test/$1" '$1 == p { sub(/^http:\/\/e.test/, "", $2); printf "%s %s\n", $2, $3 }' "$tmp/stdout"; }
type() { awk -F '\t' -v p="http://e.test/$1" '$1 == p { print $2 "/" $5 }' "$tmp/pages"; }
all3="/x a
/y a
/z area"

exits 0 "wa-extract obeys robots directives by default" wa-extract -p "$tmp/pages" "$tmp/t.warc"
is "$(links meta-nofollow)" "" "meta robots nofollow: no link written"
is "$(type meta-nofollow)" "html/0" "the page stays html, out-degree 0"
is "$(links rel)" "/z a" "rel=nofollow, in any case among other tokens, drops the a and area links"
is "$(type rel)" "html/1" "out-degree 1"
is "$(links meta-noindex)" "$all3" "meta robots noindex: the links are kept"
is "$(type meta-noindex)" "noindex/3" "and the page is of type noindex"
is "$(links meta-none)" "" "none: no links"
is "$(type meta-none)" "noindex/0" "and type noindex"
is "$(links meta-mybot)" "$all3" "a meta named for an agent not ours: ignored"
is "$(type meta-mybot)" "html/3" "type html"
is "$(links xrt)" "$all3" "X-Robots-Tag: noindex keeps the links"
is "$(type xrt)" "noindex/3" "and gives type noindex"
is "$(type xrt-other)/$(links xrt-other | wc -l)" "html/3/3" "X-Robots-Tag prefixed by another agent: ignored"
is "$(type xrt-ours)/$(links xrt-ours | wc -l)" "html/3/3" "prefixed by an agent: ignored without --robots-agent"
is "$(links xrt-two)" "" "several X-Robots-Tag fields, any case, valued directives skipped: nofollow"
is "$(type feed.xml)" "noindex/1" "X-Robots-Tag on XML: type noindex, links kept"
is "$(type img.png)" "other/0" "X-Robots-Tag on an image: still other, no document either way"
is "$(links plain)" "$all3" "a page without directives"
like "$(cat "$tmp/stderr")" "12 records: 12 pages \\(7 html, 0 xml, 0 dtd, 1 other, 0 error, 4 noindex\\), 20 links, 12 not followed \\(nofollow\\)" \
	"the summary counts noindex pages and the links not followed"

exits 0 "--robots-agent mybot" wa-extract --robots-agent mybot -p "$tmp/pages" "$tmp/t.warc"
is "$(links meta-mybot)" "" "a meta named for our agent counts"
is "$(type meta-mybot)" "noindex/0" "noindex too"
is "$(type xrt-other)/$(links xrt-other | wc -l)" "html/3/3" "X-Robots-Tag for another agent still ignored"
is "$(type xrt-ours)/$(links xrt-ours | wc -l)" "html/0/0" "X-Robots-Tag for ours: obeyed"

cp "$tmp/pages" "$tmp/pages.obeyed"
exits 0 "--ignore-robots-tags" wa-extract --ignore-robots-tags -p "$tmp/pages" "$tmp/t.warc"
for p in meta-nofollow meta-noindex meta-none meta-mybot xrt xrt-other xrt-ours xrt-two; do
	is "$(links $p)/$(type $p)" "$all3/html/3" "--ignore-robots-tags: $p as any page"
done
is "$(links rel)" "/x a
/y a
/z a
/w area" "--ignore-robots-tags: rel=nofollow links followed"
is "$(type feed.xml) $(type img.png)" "xml/1 other/0" "--ignore-robots-tags: types by media type"
like "$(cat "$tmp/stderr")" "\\(10 html, 1 xml, 0 dtd, 1 other, 0 error\\), 32 links$" \
	"--ignore-robots-tags: nothing counted as not followed"

exits 2 "--robots-agent with a space is refused" wa-extract --robots-agent "my bot" "$tmp/t.warc"
like "$(cat "$tmp/stderr")" "robots-agent: 'my bot' is no product token" "with the reason"
exits 2 "--robots-agent with a digit is refused" wa-extract --robots-agent "bot2" "$tmp/t.warc"
exits 2 "an empty --robots-agent is refused" wa-extract --robots-agent "" "$tmp/t.warc"

# Served by nginx, fetched by wa-fetch: the header as a server sends it.
mkdir -p "$tmp/site"
for p in a b c d; do echo "<html><body>$L</body></html>" >"$tmp/site/$p.html"; done
nginx_start s "$(t_addr 1)" 8080 "$tmp/site" '
location = /b.html { add_header X-Robots-Tag "noindex"; }
location = /c.html { add_header X-Robots-Tag "mybot: nofollow"; add_header X-Robots-Tag "otbot: noindex"; }
location = /d.html { add_header X-Robots-Tag "none"; }'
for p in a b c d; do echo "http://s.test:8080/$p.html"; done |
	wa-fetch --allow-private -q -w 0 --resolve "s.test:8080:$(t_addr 1)" \
	-A "Mozilla/5.0 (compatible; mybot/1.0; +https://example.org/bot)" \
	-o "$tmp/s.warc.gz" >"$tmp/log"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "200 200 200 200 " "four pages fetched"
exits 0 "wa-extract of the fetched WARC" wa-extract -p "$tmp/spages" "$tmp/s.warc.gz"
is "$(grep -v robots.txt "$tmp/spages" | cut -f 2,5 | tr '\t\n' '/ ')" "html/3 noindex/3 html/0 noindex/0 " \
	"fetched: none, noindex, ours nofollow (the agent of the warcinfo record), none"
is "$(cut -f 1 "$tmp/stdout" | sort | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" "3 3 " \
	"the links of a.html and b.html only"
exits 0 "--robots-agent otbot overrides the warcinfo record" \
	wa-extract --robots-agent otbot -p "$tmp/spages" "$tmp/s.warc.gz"
is "$(grep -v robots.txt "$tmp/spages" | cut -f 2,5 | tr '\t\n' '/ ')" "html/3 noindex/3 noindex/3 noindex/0 " \
	"otbot: c.html noindex, its links followed"
exits 0 "the same WARC after a file of another agent" \
	wa-extract -p "$tmp/spages" "$tmp/s.warc.gz" "$tmp/t.warc"
is "$(type xrt-ours)/$(links xrt-ours | wc -l)" "html/3/3" \
	"a file without warcinfo does not take the agent of the file before"
zcat "$tmp/s.warc.gz" | sed 's/^wa-fetch-robots-agent: mybot/wa-fetch-robots-agent: otbot/' >"$tmp/s2.warc"
exits 0 "a warcinfo record naming another agent" wa-extract -p "$tmp/spages" "$tmp/s2.warc"
is "$(grep -v robots.txt "$tmp/spages" | cut -f 2,5 | tr '\t\n' '/ ')" "html/3 noindex/3 noindex/3 noindex/0 " \
	"its token is the one obeyed"
zcat "$tmp/s.warc.gz" | sed 's/^wa-fetch-robots-agent: /xx-fetch-robots-agent: /' >"$tmp/s3.warc"
exits 0 "a warcinfo record without wa-fetch-robots-agent" wa-extract -p "$tmp/spages" "$tmp/s3.warc"
is "$(grep -v robots.txt "$tmp/spages" | cut -f 2,5 | tr '\t\n' '/ ')" "html/3 noindex/3 html/0 noindex/0 " \
	"the token of its http-header-user-agent"

done_testing
