#!/bin/sh
# Redirects: by default a 3xx is logged with its canonical target in column
# 10 and not followed; -L N follows up to N hops through the site queues,
# so each hop obeys its site's robots.txt and politeness.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
web_start
W=http://www.test:8080 D=http://docs.test:8080
R="--allow-private -q $WEB_RESOLVE"

printf '%s\n' $W/old.html $W/moved.html $W/chain.html >"$tmp/urls"
wa-fetch $R -w 0 "$tmp/urls" >"$tmp/log"
is "$(row $W/old.html | cut -f 3,10)" "301	$W/new.html" "a 301 is logged with its target"
is "$(row $W/moved.html | cut -f 3,10)" "302	$D/index.xhtml" "a 302 to another site too"
is "$(grep -c index.xhtml "$(web_log docs.test)")" 0 "and the target is not fetched"

n=$(wc -l <"$(web_log www.test)")
wa-fetch $R -w 0.5 -L 2 -o "$tmp/l.warc.gz" "$tmp/urls" >"$tmp/log"
is "$(wc -l <"$tmp/log")" 3 "-L 2: one row per input URL"
is "$(row $W/old.html | cut -f 3,4,10)" "200	text/html	$W/new.html" \
	"a followed redirect: the final status, column 10 the final URL"
is "$(row $W/moved.html | cut -f 3,10)" "200	$D/index.xhtml" "across sites"
is "$(head -1 "$(web_log docs.test)" | cut -d' ' -f4-5)" '"GET /robots.txt' \
	"after the other site's robots.txt"
is "$(row $W/chain.html | cut -f 3,10)" "200	$W/new.html" "a chain of two"
is "$(tail -n +$((n + 1)) "$(web_log www.test)" |
	awk '{ t = $1 * 1000; if (NR > 1 && t - prev < 500) print; prev = t }')" ""  "every hop waits -w on its site"
is "$(warcio_tsv "$tmp/l.warc.gz" warc-type warc-target-uri | grep response | cut -f 2 | sort | tr '\n' ' ')" \
	"$D/index.xhtml $D/robots.txt $W/chain.html $W/moved.html $W/new.html $W/new.html $W/old.html $W/old.html $W/robots.txt " \
	"every hop is archived under its own URL"

echo $W/chain.html | wa-fetch $R -w 0 -L 1 >"$tmp/log"
is "$(cut -f 3,10 "$tmp/log")" "too-many-redirects	$W/new.html" "more hops than -L: too-many-redirects"

# A page request carries only the --resolve entries of its own host and
# port (curl's wildcard ones included), so each hop needs its site's.
echo $W/moved.html | wa-fetch --allow-private -q -w 0 -L 1 \
	--resolve WWW.TEST:8080:$(web_addr www.test) --resolve "*:8080:$(web_addr docs.test)" \
	--resolve www.test:8081:127.0.0.1 >"$tmp/log"
is "$(cut -f 3,10 "$tmp/log")" "200	$D/index.xhtml" \
	"a hop to another site resolves through a wildcard entry; host names match in any case"

done_testing
