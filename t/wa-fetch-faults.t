#!/bin/sh
# wa-fetch against a misbehaving server (t/fault-server.py): every fault
# ends within its timeout with a logged reason, and robots.txt faults give
# the verdicts RFC 9309 asks for.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
fault_start

fetch() {	# URL [OPTIONS]: the row of URL in $tmp/log, the WARC in $tmp/f.warc.gz
	f_url=$1; shift
	echo "$f_url" | timeout 60 wa-fetch --allow-private -q -w 0 $FAULT_RESOLVE \
	    --timeout 4 -o "$tmp/f.warc.gz" "$@" >"$tmp/log" 2>"$tmp/err"
	f_rc=$?
	[ $f_rc != 124 ] || echo "# $f_url: still running after 60 s"
	cut -f 3- "$tmp/log"
}
F=http://fault.test:8080

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
is "$(fetch $F/big --max-size 1M | cut -f 1,3)" "too-large	1048576" "a 50 MiB body is cut at --max-size"
is "$(warcio_tsv "$tmp/f.warc.gz" warc-type warc-truncated | grep response | tail -1)" "response	length" \
	"and its record is marked WARC-Truncated: length"
is "$(fetch $F/big-chunked --max-size 1M | cut -f 1,3)" "too-large	1048576" "so is a chunked one"
is "$(fetch $F/bomb | cut -f 1,3)" "too-large	10485760" "a gzip bomb stops at 10M decoded bytes (the default)"
is "$(fetch $F/short | cut -f 1,3)" "partial	100" "a body shorter than its Content-Length"
is "$(warcio_tsv "$tmp/f.warc.gz" warc-type warc-truncated | grep response | tail -1)" "response	disconnect" \
	"is archived as WARC-Truncated: disconnect"
is "$(fetch $F/bad-chunked | cut -f 1)" "network" "broken chunked encoding"
is "$(fetch $F/429 | cut -f 1)" 429 "429 is logged"
printf '%s\n' $F/503 $F/ok | timeout 60 wa-fetch --allow-private -q -w 0 $FAULT_RESOLVE >"$tmp/log"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "503 200 " "503 is logged and the site goes on"

T=https://tls.test:8443
is "$(fetch $T/ok | cut -f 1)" tls "a self-signed certificate is refused"
is "$(fetch $T/ok --insecure | cut -f 1)" 200 "unless --insecure"
is "$(fetch http://fault.test:1/ok --resolve fault.test:1:$FAULT_ADDR | cut -f 1)" connect "a closed port"
is "$(fetch http://nosuchhost.invalid/ok | cut -f 1)" dns "an unknown host"

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
