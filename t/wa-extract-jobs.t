#!/bin/sh
# wa-extract -j: the records parsed on several threads give what they give
# on one, byte for byte: the links on stdout, the pages file, the messages
# on stderr (page errors, records that cannot be read, -v, the summary),
# both streams on one file descriptor, and the exit status; on a generated
# WARC of many records (pages with links, refused links, robots tags for
# several agents, warcinfo records that change the agent in mid-file,
# pages that cannot be parsed, records that cannot be read, a truncated
# end), plain and gzip, with and without -k, and on the WARCs of the
# fuzz corpus.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "needs python3"

python3 - "$tmp/big.warc" 300 7 <<'END'
import gzip, random, sys
out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
recno = 0
def record(typ, uri, block, extra=b"", length=None):
    global recno
    recno += 1
    h = b"WARC/1.1\r\nWARC-Type: %s\r\n" % typ.encode()
    h += b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n" % recno
    h += b"WARC-Date: 2026-01-02T03:%02d:%02dZ\r\n" % (recno // 60 % 60, recno % 60)
    if uri is not None:
        h += b"WARC-Target-URI: " + uri.encode() + b"\r\n"
    if typ == "response":
        h += b"Content-Type: application/http; msgtype=response\r\n"
    h += extra
    h += b"Content-Length: %d\r\n\r\n" % (len(block) if length is None else length)
    return h + block + b"\r\n\r\n"
def http(status, headers, body):
    return b"HTTP/1.1 " + status.encode() + b"\r\n" + b"".join(x.encode() + b"\r\n" for x in headers) + b"\r\n" + body
def links(k):
    s = []
    for i in range(k):
        r = rnd.random()
        if r < 0.6: s.append('<a href="/p%d.html">x</a>' % rnd.randint(0, 999))
        elif r < 0.7: s.append('<a rel="nofollow" href="http://h%d.example/">n</a>' % rnd.randint(0, 9))
        elif r < 0.75: s.append('<a href="http://bad_host!%d.example/">b</a>' % i)
        elif r < 0.78: s.append('<a href="/%s">long</a>' % ("a" * 9000))
        else: s.append('<img src="i%d.png">' % i)
    return "\n".join(s)
agents = ["", "botA", "botB"]
recs = []
for i in range(n):
    r = rnd.random()
    host = "www%d.example.com" % rnd.randint(0, 4)
    url = "http://%s/page%d.html" % (host, i)
    if i % 37 == 0:
        a = rnd.choice(agents)
        body = b"software: gen\r\n"
        if a and rnd.random() < 0.5: body += b"wa-fetch-robots-agent: " + a.encode() + b"\r\n"
        elif a: body += b"http-header-user-agent: Mozilla/5.0 (compatible; " + a.encode() + b"/1.0)\r\n"
        recs.append(record("warcinfo", None, body, b"Content-Type: application/warc-fields\r\n"))
        continue
    meta = ""
    if rnd.random() < 0.2:
        meta = '<meta name="%s" content="%s">' % (rnd.choice(["robots", "botA", "botB"]), rnd.choice(["noindex", "nofollow", "none"]))
    html = ("<!DOCTYPE html><html><head><title>t</title>%s</head><body>%s<p>%s</p></body></html>" %
            (meta, links(rnd.randint(0, 60)), "lorem " * rnd.randint(10, 300))).encode()
    hdr = ["Content-Type: text/html"]
    if rnd.random() < 0.15:
        hdr.append("X-Robots-Tag: %s: nofollow" % rnd.choice(["botA", "botB", "other"]))
    if r < 0.55:
        recs.append(record("response", url, http("200 OK", hdr, html)))
    elif r < 0.6:
        recs.append(record("response", url, http("200 OK", hdr + ["Content-Encoding: gzip"], gzip.compress(html, mtime=0))))
    elif r < 0.63:
        recs.append(record("response", url, http("200 OK", hdr + ["Content-Encoding: gzip"], b"not gzip at all")))
    elif r < 0.66:
        recs.append(record("response", url, b"garbage, no HTTP"))
    elif r < 0.69:
        x = b'<?xml version="1.0"?><rss><channel><link>http://x.example/a</link><item><link>/b</link>' + (b"</rss>" if rnd.random() < 0.5 else b"<oops>")
        recs.append(record("response", url.replace(".html", ".xml"), http("200 OK", ["Content-Type: application/rss+xml"], x)))
    elif r < 0.72:
        recs.append(record("response", url, http("404 Not Found", hdr, html)))
    elif r < 0.74:
        recs.append(record("response", url, http("301 Moved", ["Location: /moved%d" % i], b"")))
    elif r < 0.76:
        recs.append(record("response", "http://%s/robots.txt" % host, http("200 OK", ["Content-Type: text/plain"], b"User-agent: *\nSitemap: /sitemap.xml\n")))
    elif r < 0.79:
        recs.append(record("resource", url, html, b"Content-Type: text/html\r\n"))
    elif r < 0.82:
        recs.append(record("request", url, b"GET / HTTP/1.1\r\n\r\n"))
    elif r < 0.84:
        recs.append(record("metadata", url, b"a: b\r\n"))
    elif r < 0.86:
        recs.append(record("response", "dns:" + host, b"x"))
    elif r < 0.88:
        recs.append(b"this is no WARC record\r\n\r\n")
    elif r < 0.90:
        recs.append(record("response", url, http("200 OK", hdr, html), length=7).replace(b"Content-Length: 7", b"Content-Length: x7"))
    else:
        recs.append(record("response", url, http("200 OK", hdr, html * 3)))
recs.append(record("response", "http://end.example/", http("200 OK", ["Content-Type: text/html"], b"<a href=/z>z</a>"))[:-30])
with open(out, "wb") as f:
    f.write(b"".join(recs))
with open(out + ".gz", "wb") as f:
    for r in recs:
        f.write(gzip.compress(r, mtime=0))
END
head -c 400000 "$tmp/big.warc" >"$tmp/cut.warc"
for f in "$TESTDATA"/fuzz/warc/*; do
	tail -c +2 "$f" >"$tmp/fuzz-${f##*/}"
done

input=/dev/null
# run_j TAG N ARGS...: wa-extract -j N ARGS, stdin from $input; its stdout,
# stderr, both on one descriptor, exit status and pages file ($tmp/pages,
# "old" before) kept as $tmp/TAG.*
# The progress lines of a run that lasts (under valgrind) come with its
# speed: only the messages of the records are compared.
run_j() {
	tag=$1 jobs=$2
	shift 2
	echo old >"$tmp/pages"
	WA_PROGRESS_INTERVAL=1h wa-extract -j "$jobs" "$@" <"$input" >"$tmp/$tag.out" \
	    2>"$tmp/$tag.err"
	echo $? >"$tmp/$tag.status"
	mv "$tmp/pages" "$tmp/$tag.pages"
	[ "$parts" = "$all_parts" ] || return 0
	WA_PROGRESS_INTERVAL=1h wa-extract -j "$jobs" "$@" <"$input" >"$tmp/$tag.both" 2>&1
}
# same_for_jobs NAME ARGS...: -j 2, 3 and 8 give what -j 1 gives; under
# valgrind, which runs one thread at a time, -j 3 alone checks the memory,
# and the order of stdout and stderr on one descriptor, which the same
# writes make, is left to the plain run.
many_jobs="2 3 8" all_parts="out err both status pages"
parts=$all_parts
under_valgrind && many_jobs=3 parts="out err status pages"
same_for_jobs() {
	name=$1
	shift
	run_j one 1 "$@"
	for jobs in $many_jobs; do
		run_j many "$jobs" "$@"
		for part in $parts; do
			same_file "$tmp/many.$part" "$tmp/one.$part" "$name: -j $jobs: $part"
		done
	done
}

p=$tmp/pages
same_for_jobs "plain" -p "$p" "$tmp/big.warc"
like "$(cat "$tmp/one.err")" 'not a WARC record' "plain: records that cannot be read in mid-file"
like "$(cat "$tmp/one.err")" 'links refused' "plain: links refused told"
is "$(cat "$tmp/one.status") $(cat "$tmp/one.pages")" "1 old" \
    "plain: without -k, exit 1 and the pages file left as it was"
same_for_jobs "gzip -k" -k -p "$p" "$tmp/big.warc.gz"
is "$(cat "$tmp/one.status")" 0 "gzip -k: exit 0"
like "$(wc -l <"$tmp/one.pages")" '^[1-9][0-9]+$' "gzip -k: the pages written"
same_for_jobs "-v" -v -k -p "$p" "$tmp/big.warc"
same_for_jobs "-q" -q -p "$p" "$tmp/big.warc.gz"
same_for_jobs "--robots-agent" --robots-agent botB -v -p "$p" "$tmp/big.warc"
same_for_jobs "--ignore-robots-tags" --ignore-robots-tags -k -p "$p" "$tmp/big.warc"
same_for_jobs "--max-size" --max-size 2K -v -k -p "$p" "$tmp/big.warc.gz"
same_for_jobs "several files" -v -k -p "$p" "$tmp/big.warc" "$tmp/cut.warc" \
    "$tmp"/fuzz-* "$tmp/big.warc.gz"
same_for_jobs "a file that cannot be opened" -v -p "$p" "$tmp/cut.warc" \
    "$tmp/missing.warc" "$tmp/big.warc"
same_for_jobs "fuzz WARCs" -v -k -p "$p" "$tmp"/fuzz-*
input=$tmp/big.warc.gz
same_for_jobs "stdin" -v -p "$p"
same_for_jobs "- and files" -v -k -p "$p" "$tmp/cut.warc" - "$tmp/big.warc"

# Pages of very different lengths, the long ones at irregular places: the
# threads finish the records out of order, the reader waits for records
# behind a long one while later ones are done, and the ring of -j 8
# (130 records) goes round several times.
python3 - "$tmp/uneven.warc.gz" <<'END'
import gzip, sys
recs = []
for i in range(700):
    n = 4000 if i % 97 in (3, 5, 41) else i % 7
    html = "<html><body>%s</body></html>" % "".join(
        '<a href="/u%d/%d">x</a>' % (i, k) for k in range(n))
    body = ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html).encode()
    recs.append(b"WARC/1.1\r\nWARC-Type: response\r\n"
        b"WARC-Target-URI: http://uneven.example/p%d\r\n" % i +
        b"WARC-Date: 2026-01-02T03:04:05Z\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body) + body + b"\r\n\r\n")
with open(sys.argv[1], "wb") as f:
    for r in recs:
        f.write(gzip.compress(r, mtime=0))
END
same_for_jobs "pages of uneven lengths" -p "$p" "$tmp/uneven.warc.gz"
# 23 pages of 4000 links, the others of i % 7.
is "$(wc -l <"$tmp/one.out") $(wc -l <"$tmp/one.pages")" "94029 700" \
    "pages of uneven lengths: every link and page"

# gzip members that are not each one whole record, which -j N hands out
# to the threads as if they were and must then read again in their place:
# the gzip magic inside a member's data (stored), two records in one
# member, one record in two, bytes between members, a header CRC, an extra
# field, empty, cut and damaged members, blank lines before or after a
# record, warcinfo records that change the agent in mid-file, pages with
# errors and refused links around them.
python3 - "$tmp/members.warc.gz" <<'END'
import random, struct, sys, zlib
rnd = random.Random(11)
n = 0
def record(typ, uri, block, extra=b""):
    global n
    n += 1
    h = b"WARC/1.1\r\nWARC-Type: %s\r\n" % typ.encode()
    h += b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n" % n
    if uri:
        h += b"WARC-Target-URI: " + uri.encode() + b"\r\n"
    return h + extra + b"Content-Length: %d\r\n\r\n" % len(block) + block + b"\r\n\r\n"
def page(i, body=b""):
    html = b"".join(b'<a href="/p%d">x</a>' % rnd.randint(0, 99) for _ in range(rnd.randint(0, 20)))
    if rnd.random() < 0.2:
        html += b'<a href="http://bad_host!.example/">b</a>'
    if rnd.random() < 0.3:
        html += b'<meta name="%s" content="nofollow">' % rnd.choice([b"botA", b"botB", b"robots"])
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html + body
    return record("response", "http://m%d.example/p%d" % (i % 3, i),
                  b"no HTTP" if rnd.random() < 0.1 else http)
def member(data, level=6, flags=0, extra=b""):
    z = zlib.compressobj(level, zlib.DEFLATED, -15)
    hdr = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff"
    if flags & 4:
        hdr += struct.pack("<H", len(extra)) + extra
    if flags & 2:
        hdr += struct.pack("<H", zlib.crc32(hdr) & 0xffff)
    return hdr + z.compress(data) + z.flush() + struct.pack("<II", zlib.crc32(data), len(data))
def info(agent):
    return member(record("warcinfo", None, b"wa-fetch-robots-agent: " + agent + b"\r\n"))
parts = [info(b"botA")]
for i in range(600):
    r = rnd.random()
    if r < 0.04:
        parts.append(member(page(i, b"<p>\x1f\x8b\x08\x00\x1f\x8b\x08\x00</p>"), level=0))
    elif r < 0.06:
        parts.append(member(page(i) + page(i + 1000)))
    elif r < 0.08:
        p = page(i)
        k = rnd.randint(1, len(p) - 1)
        parts += [member(p[:k]), member(p[k:])]
    elif r < 0.09:
        parts += [member(page(i)), b"bytes between members"]
    elif r < 0.10:
        parts.append(member(page(i), flags=2))
    elif r < 0.12:
        parts.append(member(page(i), flags=4, extra=b"sl\x04\0abcd"))
    elif r < 0.13:
        parts += [member(b""), member(page(i))]
    elif r < 0.14:
        m = member(page(i))
        parts.append(m[:len(m) // 2])
    elif r < 0.15:
        m = bytearray(member(page(i)))
        m[len(m) // 2] ^= 0x55
        parts.append(bytes(m))
    elif r < 0.16:
        parts.append(member(b"\r\n" + page(i) if rnd.random() < 0.5 else page(i) + b"\r\n"))
    elif r < 0.17:
        parts.append(info(rnd.choice([b"botA", b"botB"])))
    elif r < 0.18:
        p = page(i)
        parts += [member(p[:-2]), member(p[-2:])]
    else:
        parts.append(member(page(i)))
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(parts))
END
same_for_jobs "members not one record each" -p "$p" "$tmp/members.warc.gz"
like "$(cat "$tmp/one.err")" 'bad gzip member' "members: damaged members told"
same_for_jobs "members not one record each, -v -k" -v -k -p "$p" "$tmp/members.warc.gz"
input=$tmp/members.warc.gz
same_for_jobs "members not one record each, stdin" -v -p "$p"
input=/dev/null
# The agent of the warcinfo records counts: reading for another gives
# other links.
wa-extract -q -j 2 "$tmp/big.warc" >"$tmp/info-agent" 2>/dev/null
wa-extract -q -j 2 --robots-agent botB "$tmp/big.warc" >"$tmp/botB" 2>/dev/null
exits 1 "the warcinfo records' agent is obeyed" cmp -s "$tmp/info-agent" "$tmp/botB"

same_for_jobs "--jobs" -p "$p" "$tmp/cut.warc"
wa-extract --jobs 2 -p "$p" "$tmp/cut.warc" >"$tmp/long.out" 2>/dev/null
same_file "$tmp/long.out" "$tmp/one.out" "--jobs is -j"
exits 2 "-j 0 is refused" wa-extract -j 0 "$tmp/cut.warc"
exits 2 "-j x is refused" wa-extract -j x "$tmp/cut.warc"

done_testing
