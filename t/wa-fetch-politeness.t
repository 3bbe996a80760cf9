#!/bin/sh
# wa-fetch's politeness (the model of Castillo, "Effective Web Crawling",
# 2004): at least -w seconds from the end of one request to a site to the
# start of the next, one connection per site at a time, at most
# --per-connection requests per connection, many sites served at once;
# Crawl-delay, Retry-After and failing sites.  Gaps are read from the servers' own access logs.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"

mkdir -p "$tmp/site"
for p in 1 2 3 4 5; do echo "page $p" >"$tmp/site/p$p.html"; done
: >"$tmp/urls"
R="--allow-private -q"
for s in 1 2 3 4; do
	nginx_start s$s "$(t_addr $s)" 8080 "$tmp/site"
	R="$R --resolve s$s.test:8080:$(t_addr $s)"
done
for p in 1 2 3; do for s in 1 2 3 4; do
	echo "http://s$s.test:8080/p$p.html" >>"$tmp/urls"
done; done

ok "four sites, three pages each, -w 1 -r 4 --per-connection 2" sh -c "wa-fetch $R -w 1 -r 4 --per-connection 2 $tmp/urls >$tmp/log"
is "$(cut -f 3 "$tmp/log" | sort | uniq -c | tr -s ' ')" " 12 200" "every page is fetched"
for s in 1 2 3 4; do
	is "$(wc -l <"$tmp/nginx-s$s/logs/access.log")" 4 "site $s: robots.txt and three pages"
	is "$(gaps s$s | awk '$1 < 1000' | wc -l)" 0 "site $s: requests at least 1 s apart"
	is "$(awk '$3 > 2' "$tmp/nginx-s$s/logs/access.log" | wc -l)" 0 \
		"site $s: at most 2 requests per connection"
	is "$(awk '{ print $2 }' "$tmp/nginx-s$s/logs/access.log" | uniq | wc -l)" 2 \
		"site $s: one connection after the other, never back to an old one"
done
first=$(for s in 1 2 3 4; do head -1 "$tmp/nginx-s$s/logs/access.log"; done | sort -n | tail -1 | cut -d' ' -f1)
last=$(for s in 1 2 3 4; do tail -1 "$tmp/nginx-s$s/logs/access.log"; done | sort -n | head -1 | cut -d' ' -f1)
ok "the sites are served at the same time, not one after the other" \
	awk -v a="$first" -v b="$last" 'BEGIN { exit !(a < b) }'

# --per-connection 1: a fresh connection for every request.
nginx_start c1 "$(t_addr 5)" 8080 "$tmp/site"
printf 'http://c1.test:8080/p%s.html\n' 1 2 3 | wa-fetch $R --resolve c1.test:8080:$(t_addr 5) -w 0 --per-connection 1 >/dev/null
is "$(awk '{ print $2 " " $3 }' "$tmp/nginx-c1/logs/access.log" | sort -u | awk '$2 == 1' | wc -l)" 4 \
	"--per-connection 1: four requests on four connections"

# Crawl-delay raises the wait; one above --max-crawl-delay defers the site.
mkdir -p "$tmp/slow" "$tmp/lazy"
cp "$tmp/site"/*.html "$tmp/slow"; cp "$tmp/site"/*.html "$tmp/lazy"
printf 'User-agent: *\nCrawl-delay: 1.5\n' >"$tmp/slow/robots.txt"
printf 'User-agent: *\nCrawl-delay: 100\n' >"$tmp/lazy/robots.txt"
nginx_start slow "$(t_addr 6)" 8080 "$tmp/slow"
nginx_start lazy "$(t_addr 7)" 8080 "$tmp/lazy"
printf 'http://slow.test:8080/p%s.html\n' 1 2 3 >"$tmp/urls"
printf 'http://lazy.test:8080/p%s.html\n' 1 2 >>"$tmp/urls"
wa-fetch $R --resolve slow.test:8080:$(t_addr 6) --resolve lazy.test:8080:$(t_addr 7) \
	-w 0.1 "$tmp/urls" >"$tmp/log" 2>"$tmp/stderr"
is "$(gaps slow | awk '$1 < 1500' | wc -l)" 0 "Crawl-delay 1.5 beats -w 0.1"
is "$(grep lazy "$tmp/log" | cut -f 2-11 | sort -u)" "-	crawl-delay	-	-	-	-	-	-	-	-" \
	"a site asking for more than --max-crawl-delay is deferred"
like "$(cat "$tmp/stderr")" "lazy.test:8080: robots.txt asks for a Crawl-delay of 100s" "with a reason"
is "$(grep -c robots.txt "$tmp/nginx-lazy/logs/access.log") $(wc -l <"$tmp/nginx-lazy/logs/access.log")" \
	"1 1" "and gets no request but robots.txt"

# Retry-After backs the site off; too long a one defers it.
nginx_start busy "$(t_addr 8)" 8080 "$tmp/site" '
	location = /p1.html { add_header Retry-After 2 always; return 503; }
	location = /p4.html { add_header Retry-After 3600 always; return 429; }'
printf 'http://busy.test:8080/p%s.html\n' 1 2 3 4 5 |
	wa-fetch $R --resolve busy.test:8080:$(t_addr 8) -w 0 --retries 0 >"$tmp/log" 2>"$tmp/stderr"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "503 200 200 429 retry-after " \
	"503 and 429 are logged, a Retry-After above the cap defers the rest"
is "$(gaps busy | sed -n 2p | awk '{ print ($1 >= 2000) }')" 1 "Retry-After 2 waits 2 s"
like "$(cat "$tmp/stderr")" "Retry-After 3600s is more than --max-crawl-delay" "the deferral is reported"

# A site failing again and again is given up.
nginx_start bad "$(t_addr 9)" 8080 "$tmp/site" 'location ~ ^/p { return 500; }'
printf 'http://bad.test:8080/p%s.html\n' 1 2 3 4 5 |
	wa-fetch $R --resolve bad.test:8080:$(t_addr 9) -w 0 --retries 0 >"$tmp/log" 2>"$tmp/stderr"
is "$(cut -f 3 "$tmp/log" | tr '\n' ' ')" "500 500 500 site-failed site-failed " \
	"three failures in a row give the site up"
like "$(cat "$tmp/stderr")" "bad.test:8080: given up after 3 failed requests in a row \(last: 500\)" \
	"with a reason"

done_testing
