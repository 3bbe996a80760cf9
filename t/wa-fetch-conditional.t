#!/bin/sh
# Change detection across runs: with -P PREVIOUS_LOG wa-fetch sends
# If-None-Match and If-Modified-Since; a 304 is "unchanged" (0) and keeps
# the previous columns; otherwise the payload digest decides.  The WARC
# gets revisit records (server-not-modified, identical-payload-digest),
# checked with warcio.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio

mkdir -p "$tmp/site"
echo "first version of a" >"$tmp/site/a.html"
echo "b stays the same" >"$tmp/site/b.html"
touch -d @1700000000 "$tmp/site/a.html" "$tmp/site/b.html"
nginx_start one "$(t_addr 1)" 8080 "$tmp/site"
R="--allow-private -q -w 0 --resolve one.test:8080:$(t_addr 1)"
U=http://one.test:8080
printf '%s\n' $U/a.html $U/b.html >"$tmp/urls"
fetch() {	# RUN [PREVIOUS]
	wa-fetch $R -o "$tmp/run$1.warc.gz" ${2:+-P "$tmp/log$2"} "$tmp/urls" >"$tmp/log$1"
	cp "$tmp/log$1" "$tmp/log"
}
cols() { row "$1" | cut -f 3-11; }

fetch 1
b1=$(cols $U/b.html)
is "$b1" "200	text/html	17	$(sha1_b32 "$tmp/site/b.html")	1700000000	\"6553f100-11\"	-	-	allow" \
	"a first fetch: changed is -"
fetch 2 1
is "$(cols $U/a.html | cut -f 1,7)" "304	0" "unchanged file: 304, changed 0"
is "$(cols $U/b.html)" "$(echo "$b1" | sed 's/^200/304/; s/	-	-	allow$/	0	-	allow/')" \
	"a 304 carries the previous type, size, digest and validators"
is "$(warcio_tsv "$tmp/run2.warc.gz" warc-type warc-profile | sort | uniq -c | tr -s ' ')" \
	" 3 request	-
 1 response	-
 2 revisit	http://netpreserve.org/warc/1.1/revisit/server-not-modified
 1 warcinfo	-" "robots.txt and the pages: 304s are archived as server-not-modified revisits"

echo "second version of a, longer" >"$tmp/site/a.html"
touch -d @1700000100 "$tmp/site/a.html"
touch -d @1700000200 "$tmp/site/b.html"	# new validators, same bytes
fetch 3 2
is "$(cols $U/a.html)" \
	"200	text/html	28	$(sha1_b32 "$tmp/site/a.html")	1700000100	\"6553f164-1c\"	1	-	allow" \
	"a changed file: 200, changed 1, the new digest"
is "$(cols $U/b.html | cut -f 1,4,5,7)" "200	$(sha1_b32 "$tmp/site/b.html")	1700000200	0" \
	"new validators but the same bytes: 200, changed 0"
is "$(warcio_tsv "$tmp/run3.warc.gz" warc-type warc-target-uri warc-profile | grep -v -e warcinfo -e robots.txt | sort)" \
	"request	$U/a.html	-
request	$U/b.html	-
response	$U/a.html	-
revisit	$U/b.html	http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" \
	"the same payload is archived as an identical-payload-digest revisit"
is "$(warcio_tsv "$tmp/run3.warc.gz" warc-type warc-payload-digest warc-refers-to-date | grep revisit)" \
	"revisit	$(sha1_b32 "$tmp/site/b.html")	$(date -u -d @"$(grep b.html "$tmp/log2" | cut -f 2)" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null)" \
	"with the digest and the date of the fetch it refers to"

# The letters of the release before still work this release: -p LOG as
# -P LOG, -c N as --per-connection N, each with a warning line.
ok "the old letters -p and -c" wa-fetch $R -p "$tmp/log3" -c 5 "$tmp/urls"
cut -f 1,3- "$tmp/stdout" >"$tmp/old-letters"
is "$(cat "$tmp/stderr")" \
	"wa-fetch: -p is now -P (--previous); the old spelling goes in the next release
wa-fetch: -c is now --per-connection; the old spelling goes in the next release" \
	"a warning line for each, naming the new spelling"
ok "their new spellings" wa-fetch $R --previous "$tmp/log3" --per-connection 5 "$tmp/urls"
cut -f 1,3- "$tmp/stdout" >"$tmp/new-letters"
same_file "$tmp/new-letters" "$tmp/old-letters" "give the same log, but for the times"
is "$(cat "$tmp/stderr")" "" "with no warning"
done_testing
