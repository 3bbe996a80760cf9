#!/bin/sh
# SIGTERM and SIGINT stop wa-fetch cleanly: no new requests, the WARC
# closed on a record boundary under its final name, every URL logged, the
# ones not done as "interrupted", exit 1; --resume then fetches only those.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio

mkdir -p "$tmp/site"
for p in 0 1 2 3 4 5 6 7 8 9; do echo "page $p" >"$tmp/site/p$p.html"; done
nginx_start one "$(t_addr 1)" 8080 "$tmp/site"
R="--allow-private -q --resolve one.test:8080:$(t_addr 1)"
for p in 0 1 2 3 4 5 6 7 8 9; do echo "http://one.test:8080/p$p.html"; done >"$tmp/urls"

wa-fetch $R -w 0.5 -o "$tmp/crawl.warc.gz" "$tmp/urls" >"$tmp/log1" 2>"$tmp/err" &
pid=$!
i=0
while [ "$(wc -l <"$tmp/nginx-one/logs/access.log")" -lt 4 ] && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
kill -TERM $pid
wait $pid
is $? 1 "a run stopped by SIGTERM exits 1"
like "$(cat "$tmp/err")" "interrupted" "and says so"
is "$(cut -f 1 "$tmp/log1" | sort)" "$(sort "$tmp/urls")" "every URL has its row"
done=$(awk -F '\t' '$3 == 200' "$tmp/log1" | wc -l)
pages=$(grep -c 'GET /p' "$tmp/nginx-one/logs/access.log")
is "$done" "$pages" "the pages the server sent are logged 200"
is "$(awk -F '\t' '$3 == "interrupted"' "$tmp/log1" | wc -l)" $((10 - done)) "the others interrupted"
ok "some were not done" test "$done" -lt 10
ok "the WARC is in place" test -f "$tmp/crawl.warc.gz"
is "$(ls -a "$tmp" | grep -c '^\.crawl')" 0 "and no temporary file is left"
is "$(warcio_tsv "$tmp/crawl.warc.gz" warc-type | grep -c response)" $((done + 1)) \
	"warcio reads every response: robots.txt and the pages"
ok "the gzip members are whole" gzip -t "$tmp/crawl.warc.gz"

wa-fetch $R -w 0 --resume "$tmp/log1" "$tmp/urls" >"$tmp/log2"
is "$(wc -l <"$tmp/log2")" $((10 - done)) "--resume fetches only the URLs not done"
is "$(cat "$tmp/log1" "$tmp/log2" | awk -F '\t' '$3 == 200' | cut -f 1 | sort)" "$(sort "$tmp/urls")" \
	"and the two logs together have every page"

# A request that does not finish within the grace is abandoned; a second
# signal abandons at once.
fault_start
echo http://fault.test:8080/stall | wa-fetch --allow-private -q $FAULT_RESOLVE --timeout 60 \
	-o "$tmp/stall.warc" >"$tmp/log3" 2>"$tmp/err" &
pid=$!
i=0
while ! grep -q 'req fault.test /stall' "$tmp/fault.out" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid
sleep 0.2
kill -INT $pid
wait $pid
is $? 1 "SIGINT twice stops at once"
is "$(cut -f 1,3 "$tmp/log3")" "http://fault.test:8080/stall	interrupted" "the request in flight is logged interrupted"
is "$(warcio_tsv "$tmp/stall.warc" warc-type warc-target-uri | tr '\t\n' '  ')" \
	"warcinfo - request http://fault.test:8080/robots.txt response http://fault.test:8080/robots.txt " \
	"and leaves no record"

done_testing
