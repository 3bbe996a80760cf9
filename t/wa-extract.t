#!/bin/sh
# wa-extract: the extraction itself (unit test-extract), then WARC files
# end to end: links and pages streams checked against rows written out by
# hand, gzip WARCs and gzip bodies, skipped record types, truncated and
# broken records, stdin, non-WARC input, and the options.
. "$(dirname "$0")/lib.sh"

unit test-extract

tab=$(printf '\t')
n=0
# record TYPE URI BLOCK-FILE [EXTRA-FIELD]: one plain WARC/1.1 record,
# dated 2026-01-02T03:04:NN with NN its number.
record() {
	n=$((n + 1))
	printf 'WARC/1.1\r\nWARC-Type: %s\r\n' "$1"
	printf 'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n' "$n"
	printf 'WARC-Date: 2026-01-02T03:04:%02dZ\r\n' "$n"
	[ -n "$2" ] && printf 'WARC-Target-URI: %s\r\n' "$2"
	case $1 in
	response) printf 'Content-Type: application/http; msgtype=response\r\n' ;;
	request) printf 'Content-Type: application/http; msgtype=request\r\n' ;;
	esac
	[ -n "${4:-}" ] && printf '%s\r\n' "$4"
	printf 'Content-Length: %s\r\n\r\n' "$(wc -c <"$3")"
	cat "$3"
	printf '\r\n\r\n'
}
# http STATUS HEADER-LINES BODY-FILE: an HTTP response with CRLF line ends.
http() {
	printf 'HTTP/1.1 %s\r\n' "$1"
	[ -n "$2" ] && printf '%s\n' "$2" | sed 's/$/\r/'
	printf '\r\n'
	cat "$3"
}
# The payload digest as a WARC holds it, computed apart from wa-extract.
digest() { printf 'sha1:%s' "$(openssl dgst -sha1 -binary "$1" | base32)"; }
t() { date -u -d "2026-01-02T03:04:${1}Z" +%s; }

d=$tmp/rec
mkdir -p "$d"
printf 'software: test\r\nformat: WARC File Format 1.1\r\n' >"$d/info"
printf 'GET / HTTP/1.1\r\nHost: example.com\r\n\r\n' >"$d/req"
cat >"$d/page.html" <<'END'
<!DOCTYPE html>
<html><head><title>Home</title>
<link rel="alternate" type="application/rss+xml" href="feed.rss">
<base href="http://example.com/docs/">
</head><body>
<a href="a.html">a</a> <a href="/b.html#top">b</a> <a href="a.html">again</a>
<a href="mailto:me@example.com">m</a> <a href="javascript:void(0)">j</a>
<form action="/search"></form><form action="/login" method="post"></form>
<iframe src="http://other.example/frame"></iframe>
<a href="data.xml">d</a>
</body></html>
END
http '200 OK' 'Content-Type: text/html; charset=utf-8' "$d/page.html" >"$d/1"
# A gzip Content-Encoding, and no payload digest field: computed.
printf '<html><a href="/gz-link">g</a></html>' | gzip -n >"$d/gz.body"
http '200 OK' 'Content-Type: text/html
Content-Encoding: gzip' "$d/gz.body" >"$d/2"
cat >"$d/feed.rss" <<'END'
<?xml version="1.0"?>
<rss version="2.0"><channel><link>http://example.com/</link>
<item><link>/posts/1</link><enclosure url="/m/1.mp3" type="audio/mpeg"/></item>
<item><link>/posts/two.html</link></item>
</channel></rss>
END
http '200 OK' 'Content-Type: application/rss+xml' "$d/feed.rss" >"$d/3"
printf '<html><body><a href="/new/place">moved</a></body></html>' >"$d/moved.html"
http '301 Moved Permanently' 'Location: /new/place
Content-Type: text/html' "$d/moved.html" >"$d/4"
printf 'User-agent: *\nDisallow: /x\nSitemap: http://example.com/sitemap.xml\n' >"$d/robots"
http '200 OK' 'Content-Type: text/plain' "$d/robots" >"$d/5"
printf '<a href="/from-404">x</a>' >"$d/404.html"
http '404 Not Found' 'Content-Type: text/html' "$d/404.html" >"$d/6"
printf '<r><a>broken</b></r>' >"$d/bad.xml"
http '200 OK' 'Content-Type: text/xml' "$d/bad.xml" >"$d/7"
# A body cut by the writer (WARC-Truncated): what is there is read; a tag
# cut by the end is none, as the HTML standard has it (EOF in a tag).
printf '<html><a href="/kept">k</a><a href="/cu' >"$d/cut.html"
http '200 OK' 'Content-Type: text/html' "$d/cut.html" >"$d/8"
# A gzip body cut short: an error.
head -c 20 "$d/gz.body" >"$d/gzcut.body"
http '200 OK' 'Content-Type: text/html
Content-Encoding: gzip' "$d/gzcut.body" >"$d/9"
printf '<?xml version="1.0"?>\n<!DOCTYPE note SYSTEM "note.dtd">\n<note xmlns="urn:x"/>' >"$d/res.xml"
printf '\211PNG' >"$d/img"
http '200 OK' 'Content-Type: image/png' "$d/img" >"$d/10"
printf 'HTTP/1.1 304 Not Modified\r\n\r\n' >"$d/revisit"

# Each record in a file of its own, for the gzip member per record below.
mkdir "$tmp/r"
r() { record "$@" >"$tmp/r/$(printf %02d $((n + 1)))"; }
r warcinfo '' "$d/info"
r request http://example.com/ "$d/req"
r response 'http://Example.com:80/index.html' "$d/1" \
	"WARC-Payload-Digest: sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
r response http://example.com/gz.html "$d/2"
r response http://example.com/feed.rss "$d/3"
r response '<http://example.com/old>' "$d/4"
r response http://example.com/robots.txt "$d/5"
r response http://example.com/missing "$d/6"
r response http://example.com/bad.xml "$d/7"
r response http://example.com/cut.html "$d/8" "WARC-Truncated: length"
r response http://example.com/gzcut.html "$d/9"
r resource http://example.com/res.xml "$d/res.xml" "Content-Type: application/xml"
r response http://example.com/img.png "$d/10"
r revisit http://example.com/index.html "$d/revisit" \
	"WARC-Profile: http://netpreserve.org/warc/1.1/revisit/server-not-modified"
r response dns:example.com "$d/info"
r metadata http://example.com/ "$d/info"
w=$tmp/crawl.warc
cat "$tmp/r"/* >"$w"

cat >"$tmp/links.want" <<END
http://example.com/index.html${tab}http://example.com/feed.rss${tab}link+xml
http://example.com/index.html${tab}http://example.com/docs/a.html${tab}a
http://example.com/index.html${tab}http://example.com/b.html${tab}a
http://example.com/index.html${tab}http://example.com/search${tab}form
http://example.com/index.html${tab}http://other.example/frame${tab}iframe
http://example.com/index.html${tab}http://example.com/docs/data.xml${tab}a+xml
http://example.com/gz.html${tab}http://example.com/gz-link${tab}a
http://example.com/feed.rss${tab}http://example.com/${tab}rss
http://example.com/feed.rss${tab}http://example.com/posts/1${tab}rss+xml
http://example.com/feed.rss${tab}http://example.com/m/1.mp3${tab}enclosure
http://example.com/feed.rss${tab}http://example.com/posts/two.html${tab}rss
http://example.com/old${tab}http://example.com/new/place${tab}redirect
http://example.com/robots.txt${tab}http://example.com/sitemap.xml${tab}sitemap+xml
http://example.com/cut.html${tab}http://example.com/kept${tab}a
http://example.com/res.xml${tab}http://example.com/note.dtd${tab}doctype+xml
END
cat >"$tmp/pages.want" <<END
http://example.com/index.html${tab}html${tab}$(t 03)${tab}sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567${tab}6${tab}-${tab}-
http://example.com/gz.html${tab}html${tab}$(t 04)${tab}$(digest "$d/gz.body")${tab}1${tab}-${tab}-
http://example.com/feed.rss${tab}xml${tab}$(t 05)${tab}$(digest "$d/feed.rss")${tab}4${tab}rss${tab}-
http://example.com/old${tab}html${tab}$(t 06)${tab}$(digest "$d/moved.html")${tab}1${tab}-${tab}-
http://example.com/robots.txt${tab}robots${tab}$(t 07)${tab}$(digest "$d/robots")${tab}1${tab}-${tab}-
http://example.com/missing${tab}dead${tab}$(t 08)${tab}$(digest "$d/404.html")${tab}0${tab}-${tab}-
http://example.com/bad.xml${tab}error${tab}$(t 09)${tab}$(digest "$d/bad.xml")${tab}0${tab}r${tab}-
http://example.com/cut.html${tab}html${tab}$(t 10)${tab}$(digest "$d/cut.html")${tab}1${tab}-${tab}-
http://example.com/gzcut.html${tab}error${tab}$(t 11)${tab}$(digest "$d/gzcut.body")${tab}0${tab}-${tab}-
http://example.com/res.xml${tab}xml${tab}$(t 12)${tab}$(digest "$d/res.xml")${tab}1${tab}note${tab}http://example.com/note.dtd
http://example.com/img.png${tab}other${tab}$(t 13)${tab}$(digest "$d/img")${tab}0${tab}-${tab}-
END

exits 0 "a plain WARC" wa-extract -p "$tmp/pages" "$w"
same_file "$tmp/stdout" "$tmp/links.want" "links: every form, resolved, in crawl and document order"
same_file "$tmp/pages" "$tmp/pages.want" "pages: a row per response and resource record"
like "$(cat "$tmp/stderr")" "crawl\\.warc: offset [0-9]+: http://example.com/bad.xml: line 1: .*mismatch" \
	"the broken XML page is reported with its reason"
like "$(cat "$tmp/stderr")" "gzcut.html: compressed body truncated" "the cut gzip body too"
like "$(cat "$tmp/stderr")" "16 records: 11 pages \\(4 html, 2 xml, 0 dtd, 1 other, 2 error, 1 dead, 1 robots\\), 15 links" \
	"the summary counts pages by type"
like "$(cat "$tmp/stderr")" "skipped records: 1 warcinfo, 1 request, 1 metadata, 1 revisit, 1 without an http\\(s\\) target" \
	"and the skipped records"

exits 0 "-q" wa-extract -q "$w"
same_file "$tmp/stdout" "$tmp/links.want" "-q: the same links"
like "$(cat "$tmp/stderr")" "^wa-extract: .*bad.xml" "-q: page errors are still reported"
is "$(grep -c . "$tmp/stderr")" 2 "-q: no summary"

gzip -c "$w" >"$tmp/one.warc.gz"
exits 0 "a WARC in one gzip member" wa-extract "$tmp/one.warc.gz"
same_file "$tmp/stdout" "$tmp/links.want" "the same links from one gzip member"
# One gzip member per record, as wa-fetch writes them.
for f in "$tmp/r"/*; do gzip -c "$f"; done >"$tmp/multi.warc.gz"
exits 0 "a WARC with a gzip member per record" wa-extract -p "$tmp/pages2" "$tmp/multi.warc.gz"
same_file "$tmp/stdout" "$tmp/links.want" "the same links from gzip members"
same_file "$tmp/pages2" "$tmp/pages.want" "the same pages"

wa-extract -p "$tmp/pages3" <"$w" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/links.want" "stdin when there is no file"
same_file "$tmp/pages3" "$tmp/pages.want" "stdin: the same pages"
gzip -c "$w" | wa-extract - >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/links.want" "gzip on stdin as '-'"

exits 0 "two files" wa-extract "$w" "$tmp/one.warc.gz"
cat "$tmp/links.want" "$tmp/links.want" >"$tmp/links2.want"
same_file "$tmp/stdout" "$tmp/links2.want" "two files: the links of each, in order"

printf 'this is no WARC file\n' >"$tmp/not.warc"
exits 1 "a file that is no WARC: exit 1" wa-extract -p "$tmp/pages4" "$tmp/not.warc"
like "$(cat "$tmp/stderr")" "not\\.warc: offset 0" "the error names the file and offset"
is "$(wc -c <"$tmp/stdout")" 0 "no links"
ok "the pages file is not written" test ! -e "$tmp/pages4"
exits 0 "-k: exit 0" wa-extract -k -p "$tmp/pages4" "$tmp/not.warc"
ok "and the pages file is written, empty" test -f "$tmp/pages4" -a ! -s "$tmp/pages4"

# The WARC cut inside the feed's record: the records before it are read,
# the error names where the cut record starts.
off=$(grep -abo 'WARC/1.1' "$w" | sed -n 5p | cut -d: -f1)
head -c $((off + 200)) "$w" >"$tmp/cut.warc"
exits 1 "a WARC cut inside a record: exit 1" wa-extract "$tmp/cut.warc"
like "$(cat "$tmp/stderr")" "cut\\.warc: offset $off" "the error names the offset of the cut record"
head -7 "$tmp/links.want" >"$tmp/links.head"
same_file "$tmp/stdout" "$tmp/links.head" "the links of the records before the cut"

exits 0 "--max-size 100" wa-extract --max-size 100 -p "$tmp/pages5" "$w"
like "$(grep index.html "$tmp/pages5")" "${tab}error${tab}" "a body over --max-size is an error page"
like "$(cat "$tmp/stderr")" "index.html: body larger than --max-size" "and reported"
exits 2 "--max-size 0 is a usage error" wa-extract --max-size 0 "$w"
exits 2 "an unknown option is a usage error" wa-extract --no-such-option
exits 1 "a missing file" wa-extract "$tmp/no-such.warc"
like "$(cat "$tmp/stderr")" "^wa-extract: .*no-such\\.warc" "names the file"
exits 0 "-h" wa-extract -h
like "$(head -1 "$tmp/stdout")" "^usage: wa-extract" "-h prints the usage"
exits 0 "--version" wa-extract --version
like "$(cat "$tmp/stdout")" "^wa-extract \\(wa\\) " "--version"

done_testing
