#!/bin/sh
# WARC/1.1 files (src/lib/warc.c): the unit tests, then the files our
# writer makes read by warcio.js, a reader written by others, with every
# field checked against values known here (dates, URIs, SHA-1 digests
# computed by openssl); gzip checks each member; and files warcio.js
# writes read by our reader.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
tw=$WA_UNIT/test-warc

unit test-warc

d=$tmp/w
mkdir "$d"
ok "test-warc writes the sample files" "$tw" write "$d"

# The blocks of the four sample records (test-warc.c, samples[]).
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello' >"$tmp/b1"
printf 'GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n' >"$tmp/b2"
i=0
while [ $i -lt 256 ]; do
	printf "\\$(printf %03o $i)"
	i=$((i + 1))
done >"$tmp/b3"
printf '\r\n\r\nWARC/1.1\r\n\r\n\r\n' >>"$tmp/b3"
: >"$tmp/b4"
printf 'software: wa-test 1\r\nformat: WARC File Format 1.1\r\n' >"$tmp/info"
is "$(wc -c <"$tmp/b3" | tr -d ' ')" 274 "the binary block has 274 bytes"

# WARC-Type, WARC-Target-URI, WARC-Date, WARC-Block-Digest, Content-Length
# and WARC-Payload-Digest of each sample record.
{
	printf 'response\thttp://127.0.0.1:8080/a\t2023-11-14T22:13:20.000000Z\t%s\t68\t%s\n' \
		"$(warc_digest <"$tmp/b1")" "$(printf hello | warc_digest)"
	printf 'request\thttp://127.0.0.1:8080/a\t2023-11-14T22:13:21.000001Z\t%s\t41\t-\n' \
		"$(warc_digest <"$tmp/b2")"
	printf 'resource\thttp://127.0.0.1:8080/bytes\t2023-11-14T22:13:22.123456Z\t%s\t274\t-\n' \
		"$(warc_digest <"$tmp/b3")"
	printf 'metadata\thttp://127.0.0.1:8080/empty\t2023-11-14T22:13:23.999999Z\t%s\t0\t-\n' \
		"$(warc_digest <"$tmp/b4")"
} >"$tmp/want-records"
is "$(sed -n 4p "$tmp/want-records" | cut -f4)" sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ \
	"openssl and base32 give the known digest of nothing"

fields="warc-type warc-target-uri warc-date warc-block-digest content-length warc-payload-digest"
for f in plain.warc members.warc.gz; do
	warcio_tsv "$d/$f" offset $fields warc-filename >"$tmp/got" 2>"$tmp/err"
	is "$(wc -l <"$tmp/got" | tr -d ' ')" 5 "$f: warcio reads 5 records"
	is "$(head -1 "$tmp/got" | cut -f2,5,6,8)" \
		"warcinfo	$(warc_digest <"$tmp/info")	51	$f" \
		"$f: warcio sees the warcinfo first, its digest and WARC-Filename"
	like "$(head -1 "$tmp/got" | cut -f4)" '^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{6}Z$' \
		"$f: the warcinfo's WARC-Date has microseconds"
	tail -n +2 "$tmp/got" | cut -f2-7 >"$tmp/got-records"
	same_file "$tmp/got-records" "$tmp/want-records" \
		"$f: type, URI, date, block digest, length and payload digest of every record"
	# Both readers find the records at the same offsets.
	"$tw" read "$d/$f" | cut -f1 | grep -v '^records' >"$tmp/our-offsets"
	cut -f1 "$tmp/got" >"$tmp/warcio-offsets"
	same_file "$tmp/our-offsets" "$tmp/warcio-offsets" "$f: the same record offsets as warcio"
done

ok "members.warc.gz passes gzip -t" gzip -t "$d/members.warc.gz"
# Every offset warcio gives is a gzip member that gzip alone decompresses
# to a record.
bad=
for off in $(cat "$tmp/warcio-offsets"); do
	head=$(tail -c +$((off + 1)) "$d/members.warc.gz" | gzip -dc 2>/dev/null | head -c 8)
	[ "$head" = WARC/1.1 ] || bad="$bad $off"
done
is "$bad" "" "each record of members.warc.gz is a gzip member of its own"

# Through a pipe, as in "zcat | wa-extract -" or "cat x.warc.gz | ...".
"$tw" read "$d/members.warc.gz" >"$tmp/direct"
cat "$d/members.warc.gz" | "$tw" read - >"$tmp/piped"
same_file "$tmp/piped" "$tmp/direct" "a gzip WARC read from a pipe"
gzip -dc "$d/members.warc.gz" | "$tw" read - | cut -f2- >"$tmp/piped"
cut -f2- "$tmp/direct" >"$tmp/direct-cols"
same_file "$tmp/piped" "$tmp/direct-cols" "the same WARC decompressed by gzip, read from a pipe"

# Rotation at 700 bytes: test-warc.c says which records go where.
rot_want="rot.warc.gz:warcinfo response request
rot-00001.warc.gz:warcinfo resource
rot-00002.warc.gz:warcinfo metadata response
rot-00003.warc.gz:warcinfo request resource
rot-00004.warc.gz:warcinfo metadata"
got=
for f in rot.warc.gz rot-00001.warc.gz rot-00002.warc.gz rot-00003.warc.gz \
	rot-00004.warc.gz rot-00005.warc.gz; do
	[ -e "$d/$f" ] || continue
	types=$(warcio_tsv "$d/$f" warc-type | tr '\n' ' ')
	got="$got$f:${types% }
"
done
is "$got" "$rot_want
" "rotated files in order, each beginning with its warcinfo (warcio)"
names=
for f in rot.warc.gz rot-00001.warc.gz rot-00002.warc.gz rot-00003.warc.gz rot-00004.warc.gz; do
	names="$names$(warcio_tsv "$d/$f" warc-filename | head -1) "
done
is "$names" "rot.warc.gz rot-00001.warc.gz rot-00002.warc.gz rot-00003.warc.gz rot-00004.warc.gz " \
	"each rotated file's warcinfo names it"
ok "the rotated files pass gzip -t" gzip -t "$d"/rot*.warc.gz
is "$(ls -A "$d" | grep -c '^\.')" 0 "no temporary files left"

exits 1 "writing into a missing directory is an error" "$tw" write "$tmp/missing"
like "$(cat "$tmp/stderr")" "$tmp/missing/plain.warc: cannot create a temporary file" \
	"... that names the file"
exits 1 "reading a missing file is an error" "$tw" read "$tmp/missing.warc"
like "$(cat "$tmp/stderr")" "^test-warc: $tmp/missing.warc: No such file" "... that names it"

# Files written by warcio.js, read by our reader: the block digests we
# compute equal the ones warcio wrote.
for f in js.warc js.warc.gz; do
	ok "warcio.js writes $f" warcio_write "$tmp/$f"
	"$tw" read "$tmp/$f" >"$tmp/ours" 2>"$tmp/err"
	is "$(tail -1 "$tmp/ours")" "records 4 errors 0" "$f: our reader reads 4 records, no errors"
	sed '$d' "$tmp/ours" | cut -f1,2,3,5 >"$tmp/ours-cols"
	# warcio gives its warcinfo no digest: openssl computes it here.
	warcio_tsv "$tmp/$f" offset warc-type warc-target-uri warc-block-digest |
		sed '1s/\t-$/\t'"$(printf 'software: warcio.js\r\n' | warc_digest)"'/' >"$tmp/theirs"
	same_file "$tmp/ours-cols" "$tmp/theirs" \
		"$f: offsets, types, URIs and block digests agree with warcio"
done
is "$(sed -n 3p "$tmp/ours" | cut -f5)" "$(head -c 256 "$tmp/b3" | warc_digest)" \
	"js.warc.gz: the bytes 0 to 255 came through"

done_testing
