#!/bin/sh
# wa-fetch under local faults and hostile servers: a full disk, signals, a
# robots cache that cannot be written and too few file descriptors leave a
# WARC and a log that agree (every row with an HTTP status names a record
# the WARC holds), so that --resume completes the crawl; a server that
# stalls after its header is given up after three timeouts; a response
# with bytes past its Content-Length is not taken for the next one; a
# robots.txt gzip-encoded unasked is decoded.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
fault_start
F=http://fault.test:8080
FETCH="wa-fetch --allow-private -q $FAULT_RESOLVE"

# The rows of LOG with an HTTP status whose URL and payload digest no
# response record of WARC has (all of them if WARC cannot be read).
unarchived() {	# LOG WARC
	warcio_tsv "$2" warc-type warc-target-uri warc-payload-digest 2>/dev/null |
	    awk -F '\t' '$1 == "response" { print $2 "\t" $3 }' | sort -u >"$tmp/records"
	awk -F '\t' '$3 ~ /^[0-9]+$/ { print $1 "\t" $6 }' "$1" | sort -u >"$tmp/named"
	comm -23 "$tmp/named" "$tmp/records"
}
# The URLs of the logs given that have an outcome, one line each.
outcomes() { cat "$@" | awk -F '\t' '$3 != "interrupted" { print $1 }' | sort; }
requests() { grep -c "^req fault.test /nested/" "$tmp/fault.out"; }

# Pages of 20 kB (t/fault-server.py /nested/N is N bytes), on three sites.
for i in $(seq 1 30); do echo "$F/nested/$((20000 + i))"; done >"$tmp/one-site"
for i in $(seq 1 30); do
	for h in fault.test tls.test robots-403.test; do echo "https://$h:8443/nested/$((20000 + i))"; done
done >"$tmp/three-sites"

# Valgrind makes each run of wa-fetch take seconds: one case of each kind.
if under_valgrind; then
	sigs=HUP runs=1
	head -n 30 "$tmp/three-sites" >"$tmp/full-list"
else
	sigs="HUP TERM INT" runs="1 2 3"
	cp "$tmp/three-sites" "$tmp/full-list"
fi

# Signals: each stops the run with a log that names only archived records.
for sig in $sigs; do
	before=$(requests)
	$FETCH -w 0.1 -o "$tmp/sig.warc.gz" "$tmp/one-site" >"$tmp/sig1.log" 2>"$tmp/err" &
	pid=$!
	i=0
	while [ "$(requests)" -lt $((before + 5)) ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -$sig $pid
	wait $pid
	is $? 1 "SIG$sig: the run stops with exit 1"
	is "$(unarchived "$tmp/sig1.log" "$tmp/sig.warc.gz")" "" \
		"SIG$sig: every row with a status names a record of the WARC"
	ok "SIG$sig: some URLs are left for later" grep -q "	interrupted	" "$tmp/sig1.log"
	$FETCH -w 0 --resume "$tmp/sig1.log" -o "$tmp/sig2.warc.gz" "$tmp/one-site" >"$tmp/sig2.log"
	is "$(outcomes "$tmp/sig1.log" "$tmp/sig2.log")" "$(sort "$tmp/one-site")" \
		"SIG$sig: --resume completes the crawl, each URL once"
	is "$(unarchived "$tmp/sig2.log" "$tmp/sig2.warc.gz")" "" "SIG$sig: and its log names its records"
done

# A full disk under the WARC, over TLS (the main thread is in OpenSSL when
# the writing thread finds the disk full), several times.
if unshare -m true 2>/dev/null; then
	for k in $runs; do
		mkdir -p "$tmp/disk"
		unshare -m sh -c 't=$1 k=$2; shift 2
			mount -t tmpfs -o size=300k tmpfs "$t/disk" || exit 9
			"$@" -r 4 -w 0 --insecure -o "$t/disk/c.warc" "$t/full-list" \
			    >"$t/full$k.log" 2>"$t/full$k.err"
			echo $? >"$t/full$k.rc"
			ls -A "$t/disk" >"$t/full$k.ls"
			cp "$t/disk/c.warc" "$t/full$k.warc"' sh "$tmp" $k $FETCH
	done
	n=$(echo $runs | wc -w)
	is "$(cat "$tmp"/full?.rc | sort -u)" 1 "a full disk: exit 1, no crash ($n runs)"
	is "$(cat "$tmp"/full?.err | grep -c "disk/c.warc: No space left on device")" $n \
		"the error names the file and the reason"
	is "$(cat "$tmp"/full?.ls | sort -u)" c.warc "no temporary file is left, the WARC is in place"
	is "$(for k in $runs; do unarchived "$tmp/full$k.log" "$tmp/full$k.warc"; done)" "" \
		"every row with a status names a record of the WARC"
	is "$(cat "$tmp"/full?.log | cut -f 3 | grep -v '^200$' | sort -u)" interrupted \
		"the other URLs are logged as interrupted"
	is "$(wc -l <"$tmp/full1.log")" "$(wc -l <"$tmp/full-list")" "every URL has its row"
	$FETCH -r 4 -w 0 --insecure --resume "$tmp/full1.log" -o "$tmp/full-rest.warc" \
	    "$tmp/full-list" >"$tmp/full-rest.log"
	is "$(outcomes "$tmp/full1.log" "$tmp/full-rest.log")" "$(sort "$tmp/full-list")" \
		"--resume with more room completes the crawl, each URL once"
	# No room for the next file of --warc-max-size (no inode left): the
	# files before it stay whole, and the log names none of the next one.
	unshare -m sh -c 't=$1; shift
		mount -t tmpfs -o size=10m,nr_inodes=4 tmpfs "$t/disk" || exit 9
		"$@" -r 4 -w 0 --insecure --warc-max-size 60000 -o "$t/disk/c.warc" \
		    "$t/full-list" >"$t/inodes.log" 2>"$t/inodes.err"
		echo $? >"$t/inodes.rc"
		ls -A "$t/disk" >"$t/inodes.ls"
		cat "$t"/disk/c*.warc >"$t/inodes.warc"' sh "$tmp" $FETCH
	is "$(cat "$tmp/inodes.rc")" 1 "no room for the next WARC file: exit 1, no crash"
	like "$(cat "$tmp/inodes.err")" "disk/c-0*[0-9].warc: .*No space left on device" \
		"the error names the file that could not be made"
	is "$(grep -c '^\.' "$tmp/inodes.ls")" 0 "no temporary file is left"
	is "$(unarchived "$tmp/inodes.log" "$tmp/inodes.warc")" "" \
		"every row with a status names a record of the files written"
else
	ok "a full disk # SKIP unshare -m needs root" true
fi

# A robots cache that cannot be written: a warning, and the crawl goes on.
: >"$tmp/not-a-dir"
echo $F/ok | $FETCH -w 0 --robots-cache "$tmp/not-a-dir" >"$tmp/log" 2>"$tmp/err"
is "$?:$(cut -f 3 "$tmp/log")" "0:200" "a robots cache that cannot be written does not stop the crawl"
like "$(cat "$tmp/err")" "not-a-dir/.*Not a directory" "it is reported"
echo $F/ok | $FETCH -w 0 --robots-cache "$tmp/no/such/dir" >"$tmp/log" 2>"$tmp/err"
is "$?:$(cut -f 3 "$tmp/log")" "0:200" "nor does one that cannot be made"

# Out of file descriptors: a local fault, not the sites' connect failure
# (valgrind needs descriptors of its own: the tool runs without it).
for i in 1 2 3; do
	for h in fault.test tls.test robots-403.test robots-utf8.test; do echo "http://$h:8080/ok"; done
done >"$tmp/four-sites"
sh -c 'ulimit -n 10 && exec "$@"' sh "$(unwrapped wa-fetch)" --allow-private -q $FAULT_RESOLVE -r 8 -w 0 "$tmp/four-sites" >"$tmp/log" 2>"$tmp/err"
rc=$?
like "$(cat "$tmp/err")" "no socket: Too many open files" "no file descriptor left: said so"
is "$(cut -f 3 "$tmp/log" | grep -v -e '^200$' -e '^interrupted$')" "" \
	"and no URL is logged as the site's failure"
is "$rc" "$(grep -q interrupted "$tmp/log" && echo 1 || echo 0)" "exit 1 only if URLs were left"

# A server that sends its header and then nothing: three timeouts, then
# the site is given up.
for i in 1 2 3 4 5 6; do echo "$F/stall-body/$i"; done |
    $FETCH -w 0 --timeout 1 --retries 0 >"$tmp/log" 2>"$tmp/err"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "timeout timeout timeout site-failed site-failed site-failed " \
	"a site stalling after its header is given up after 3 timeouts"
like "$(cat "$tmp/err")" "given up after 3 failed requests in a row \(last: timeout\)" "and the reason is given"

# Bytes past a response's Content-Length (t/fault-server.py sends a whole
# response there) are not the next URL's response.
for i in 1 2 3 4; do echo "$F/excess/$i"; done |
    $FETCH -w 0.3 -o "$tmp/excess.warc" >"$tmp/log"
want=$(for i in 1 2 3 4; do printf '%s\t%s\n' "$F/excess/$i" \
    "$(printf '<html>/excess/%-9s</html>' $i | warc_digest)"; done)
is "$(cut -f 1,6 "$tmp/log")" "$want" "a response with excess bytes: each URL logged with its own page"
is "$(warcio_tsv "$tmp/excess.warc" warc-type warc-target-uri warc-payload-digest | grep '^response' |
    grep -v robots.txt | cut -f 2,3)" "$want" "and archived with it"

# robots.txt with Content-Encoding: gzip, not asked for.
mkdir "$tmp/cache"
echo http://robots-gzip.test:8080/ok | $FETCH -w 0 --robots-cache "$tmp/cache" >"$tmp/log"
is "$(cut -f 3,11 "$tmp/log")" "robots	disallow" "a gzip-encoded robots.txt sent unasked is decoded"
is "$(tail -n +2 "$tmp/cache/http_robots-gzip.test_8080")" "User-agent: *
Disallow: /" "and cached decoded"

# A Content-Length past what any integer holds: libcurl reads to the close,
# but the body is shorter than declared, so the record is truncated.
echo $F/overflow-length | $FETCH -w 0 -o "$tmp/overflow.warc" >"$tmp/log"
is "$(cut -f 3,5 "$tmp/log")" "partial	20" "a Content-Length of 10^26: logged partial"
is "$(warcio_tsv "$tmp/overflow.warc" warc-type warc-target-uri warc-truncated |
    grep "^response	$F/overflow-length")" "response	$F/overflow-length	disconnect" \
	"and archived as truncated"

done_testing
