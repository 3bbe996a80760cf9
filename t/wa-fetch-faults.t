#!/bin/sh
# wa-fetch against a misbehaving server (t/fault-server.py): every fault
# ends within its timeout with a logged reason, and robots.txt faults give
# the verdicts RFC 9309 asks for.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
fault_start

fetch() {	# URL [OPTIONS]: the row of URL in $tmp/log, the WARC in $tmp/f.warc.gz,
	# wa-fetch's peak RSS in KiB in $tmp/rss
	f_url=$1; shift
	echo "$f_url" | timeout 60 /usr/bin/time -f %M -o "$tmp/rss" wa-fetch --allow-private -q \
	    -w 0 $FAULT_RESOLVE --timeout 4 -o "$tmp/f.warc.gz" "$@" >"$tmp/log" 2>"$tmp/err"
	f_rc=$?
	[ $f_rc != 124 ] || echo "# $f_url: still running after 60 s"
	cut -f 3- "$tmp/log"
}
F=http://fault.test:8080
# The memory bound of a hostile body: the cap kept plus libcurl's buffers
# and the libraries, far below the body.  Valgrind and ASan have their own.
rss_below() {	# MiB MSG: wa-fetch's last peak RSS
	if under_valgrind || under_asan; then
		ok "$2 # SKIP RSS under valgrind or ASan" true
	else
		ok "$2 (peak RSS $(($(cat "$tmp/rss") / 1024)) MiB < $1 MiB)" test "$(cat "$tmp/rss")" -lt $(($1 * 1024))
	fi
}

is "$(fetch $F/ok | cut -f 1,2,9)" "200	text/html	allow" "the fault server answers"
is "$(fetch $F/slow | cut -f 1)" timeout "a body trickling in hits --timeout"
is "$(fetch $F/slow --timeout 60 --low-speed-limit 100 --low-speed-time 2 | cut -f 1)" timeout \
	"or the low-speed limit"
is "$(fetch $F/stall | cut -f 1)" timeout "a server that never answers hits --timeout"
is "$(fetch $F/loop/0 | cut -f 1,8)" "302	$F/loop/1" "without -L a redirect is logged with its target"
is "$(fetch $F/loop/0 -L 3 | cut -f 1,8)" "too-many-redirects	$F/loop/4" "an endless redirect stops after -L hops"
is "$(fetch $F/self -L 2 | cut -f 1,8)" "too-many-redirects	$F/self" "so does a redirect to itself"
is "$(fetch $F/chain/3 -L 3 | cut -f 1,3,8)" "200	39	$F/chain/0" \
	"-L 3 follows three redirects; column 10 names where they led"
is "$(warcio_tsv "$tmp/f.warc.gz" warc-type warc-target-uri | grep response | cut -f 2 | tr '\n' ' ')" \
	"$F/robots.txt $F/chain/3 $F/chain/2 $F/chain/1 $F/chain/0 " "and every hop is archived"
is "$(fetch $F/huge | cut -f 1,3)" "too-large	10485760" "a 10 GiB body is cut at --max-size (10M)"
rss_below 48 "within its memory bound"
is "$(fetch $F/big --max-size 1M | cut -f 1,3)" "too-large	1048576" "so is a 50 MiB one at 1M"
is "$(warcio_tsv "$tmp/f.warc.gz" warc-type warc-truncated | grep response | tail -1)" "response	length" \
	"and its record is marked WARC-Truncated: length"
is "$(fetch $F/big-chunked --max-size 1M | cut -f 1,3)" "too-large	1048576" "so is a chunked one"
is "$(fetch $F/bomb | cut -f 1,3)" "too-large	10485760" "a gzip bomb stops at 10M decoded bytes (the default)"
rss_below 48 "within its memory bound"
is "$(fetch $F/short | cut -f 1,3)" "partial	100" "a body shorter than its Content-Length"
is "$(warcio_tsv "$tmp/f.warc.gz" warc-type warc-truncated | grep response | tail -1)" "response	disconnect" \
	"is archived as WARC-Truncated: disconnect"
is "$(fetch $F/bad-chunked | cut -f 1)" "network" "broken chunked encoding"
is "$(fetch $F/429 | cut -f 1)" 429 "429 is logged"
printf '%s\n' $F/503 $F/ok | timeout 60 wa-fetch --allow-private -q -w 0 --retries 0 $FAULT_RESOLVE >"$tmp/log"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "503 200 " "503 is logged and the site goes on"

T=https://tls.test:8443
is "$(fetch $T/ok | cut -f 1)" tls-untrusted "a self-signed certificate is refused as not trusted"
is "$(fetch $T/ok --insecure | cut -f 1)" 200 "unless --insecure"
is "$(fetch http://fault.test:1/ok --resolve fault.test:1:$FAULT_ADDR | cut -f 1)" connect "a closed port"
if offline true 2>/dev/null; then
	is "$(echo http://nosuchhost.test/ok | offline wa-fetch -q -w 0 | cut -f 3)" dns "an unknown host"
else
	ok "an unknown host # SKIP needs unshare -n (root)" true
fi

# Redirects aimed where a crawler must not go.  --allow-net lets the fault
# server's address through and nothing else; inside.test names another
# loopback address of this test, served by an nginx that must see no
# request (loopback all the same: a failing check contacts nothing else).
mkdir "$tmp/inside" && echo secret >"$tmp/inside/secret"
nginx_start web-inside "$(t_addr 8)" 8080 "$tmp/inside"
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
# The rows in sorted order: the target's row and /ok's come from two sites,
# in the order their requests end.
aim() {	# TARGET: fetch a redirect to TARGET and /ok with -L 2; $tmp/log, $tmp/err
	printf '%s\n' "$F/redirect?to=$(enc "$1")" $F/ok | timeout 60 wa-fetch -q -w 0 -L 2 \
	    --allow-net $FAULT_ADDR/32 $FAULT_RESOLVE --resolve inside.test:8080:$(t_addr 8) \
	    >"$tmp/log" 2>"$tmp/err"
	cut -f 3,10 "$tmp/log" | sort | tr '\t\n' '  '
}
is "$(aim http://inside.test:8080/secret)" "200 - private-address http://inside.test:8080/secret " \
	"a redirect to a private address is refused, the target named; the crawl goes on"
like "$(cat "$tmp/err")" "http://inside.test:8080: refused: the host has a non-public address" \
	"with a reason on stderr"
is "$(aim 'http://[::1]:8080/')" "200 - private-address http://[::1]:8080/ " "so is IPv6 loopback"
is "$(aim http://2130706433:8080/x)" "200 - private-address http://127.0.0.1:8080/x " \
	"and 127.0.0.1 written as one number"
targets="ftp://fault.test/x file:///etc/passwd javascript:alert(1) data:text/html,hi
    gopher://fault.test:70/ http://fault.test:99999/"
under_valgrind && targets="file:///etc/passwd http://fault.test:99999/"
for target in $targets; do
	is "$(aim "$target")" "200 - bad-redirect - " "a redirect to $target: bad-redirect"
done
is "$(wc -c <"$(web_log inside)")" 0 "the server at the private address got no request"
echo http://$(t_addr 8):8080/x | wa-fetch -q -w 0 >"$tmp/log" 2>"$tmp/err"
is "$(cut -f 3 "$tmp/log")" private-address "without --allow-private or --allow-net a loopback URL is refused"
exits 2 "--allow-net with host bits past the prefix is a usage error" \
	wa-fetch --allow-net 127.0.0.1/8 /dev/null
like "$(cat "$tmp/stderr")" "allow-net: '127.0.0.1/8' is not ADDR or ADDR/BITS" "naming it"

# robots.txt faults
verdict() { fetch "$1" | cut -f 1,9 | tr '\t' ' '; }
is "$(verdict http://robots-500.test:8080/ok)" "robots disallow" "robots.txt 500: disallow all"
is "$(verdict http://robots-403.test:8080/ok)" "200 allow" "robots.txt 403: allow all"
is "$(verdict http://robots-redirect.test:8080/private/x)" "robots disallow" \
	"robots.txt after 5 redirects is obeyed"
is "$(verdict http://robots-redirect.test:8080/ok)" "200 allow" "for its own paths only"
is "$(verdict http://robots-loop.test:8080/ok)" "200 allow" "6 redirects: unavailable, allow all"
is "$(verdict http://robots-big.test:8080/early)" "robots disallow" "600 KiB robots.txt: early rules count"
is "$(verdict http://robots-big.test:8080/late)" "404 allow" "rules past 500 KiB do not"
is "$(verdict http://robots-slow.test:8080/ok)" "robots disallow" "an unreachable robots.txt: disallow all"
like "$(cat "$tmp/err")" "robots-slow.test:8080/robots.txt: .*disallowed for this run" "with a reason"

done_testing
