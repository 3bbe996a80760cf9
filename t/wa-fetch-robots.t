#!/bin/sh
# wa-fetch and robots.txt (RFC 9309): fetched once per site before its
# pages, its rules obeyed (our group, else "*"), 4xx allows everything, 5xx
# disallows everything, redirects followed, only the first 500 KiB read,
# kept in --robots-cache for 24 hours, and archived in the WARC, where its
# Sitemap lines are found.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"

R="--allow-private -q -w 0"
mk() {	# NAME N: a site with pages p1..p3 and private/{x,ok}.html
	mkdir -p "$tmp/$1/private" "$tmp/$1/r"
	for p in 1 2 3; do echo "page $p" >"$tmp/$1/p$p.html"; done
	echo x >"$tmp/$1/private/x.html"
	echo ok >"$tmp/$1/private/ok.html"
	R="$R --resolve $1.test:8080:$(t_addr $2)"
}
mk a 1; mk b 2; mk c 3; mk d 4; mk e 5; mk f 6
cat >"$tmp/a/robots.txt" <<TXT
User-agent: *
Disallow: /

# our group
User-agent: wa-fetch
Disallow: /private
Allow: /private/ok
Sitemap: http://a.test:8080/sitemap.xml
TXT
printf 'User-agent: *\nDisallow: /p2\n' >"$tmp/d/r/robots.txt"
{
	printf 'User-agent: *\nDisallow: /p1\n'
	i=0; while [ $i -lt 13000 ]; do echo "# a comment line of fifty bytes to pad the file."; i=$((i + 1)); done
	printf 'Disallow: /p2\n'
} >"$tmp/e/robots.txt"
nginx_start a "$(t_addr 1)" 8080 "$tmp/a"
nginx_start b "$(t_addr 2)" 8080 "$tmp/b"
nginx_start c "$(t_addr 3)" 8080 "$tmp/c" 'location = /robots.txt { return 503; }'
nginx_start d "$(t_addr 4)" 8080 "$tmp/d" 'location = /robots.txt { return 301 /r/robots.txt; }'
nginx_start e "$(t_addr 5)" 8080 "$tmp/e"
nginx_start f "$(t_addr 6)" 8080 "$tmp/f"
ok "the robots.txt of e is over 500 KiB" test "$(wc -c <"$tmp/e/robots.txt")" -gt 600000

for s in a b c d e; do
	for p in p1.html p2.html private/x.html private/ok.html; do
		echo "http://$s.test:8080/$p"
	done
done >"$tmp/urls"
ok "a run over five sites" sh -c "wa-fetch $R -o $tmp/crawl.warc $tmp/urls >$tmp/log 2>$tmp/err"
verdicts() { grep "//$1.test" "$tmp/log" | sort | awk -F '\t' '{ sub(/.*8080/, "", $1); printf "%s %s %s\n", $1, $3, $11 }'; }
is "$(verdicts a)" "/p1.html 200 allow
/p2.html 200 allow
/private/ok.html 200 allow
/private/x.html robots disallow" "our own group: longest match, Allow wins"
is "$(verdicts b)" "/p1.html 200 allow
/p2.html 200 allow
/private/ok.html 200 allow
/private/x.html 200 allow" "no robots.txt (404): everything allowed"
is "$(verdicts c | awk '{ print $2, $3 }' | sort -u)" "robots disallow" "robots.txt answering 503: nothing allowed"
like "$(cat "$tmp/err")" "c.test:8080/robots.txt: status 503" "and the reason is given"
is "$(verdicts d | grep p2)" "/p2.html robots disallow" "a redirected robots.txt is followed"
is "$(verdicts e | grep -E 'p[12]')" "/p1.html robots disallow
/p2.html 200 allow" "only the first 500 KiB of robots.txt count"
for s in a b c d e; do
	is "$(grep -c 'GET /robots.txt' "$tmp/nginx-$s/logs/access.log")" 1 "site $s: robots.txt asked once"
	is "$(head -1 "$tmp/nginx-$s/logs/access.log" | cut -d' ' -f4)" '"GET' \
		"site $s: before any page"
done
head -1 "$tmp/nginx-d/logs/access.log" | grep -q '/robots.txt' &&
	sed -n 2p "$tmp/nginx-d/logs/access.log" | grep -q '/r/robots.txt'
ok "the redirect of d's robots.txt was followed first" test $? = 0
like "$(grep -a '^Sitemap: ' "$tmp/crawl.warc")" "^Sitemap: http://a.test:8080/sitemap.xml" \
	"robots.txt is archived with its Sitemap lines"
is "$(grep -a -A3 'WARC-Type: response' "$tmp/crawl.warc" | grep -a -c 'Target-URI: http://a.test:8080/robots.txt')" \
	1 "as a response record of its own URL"

is "$(wa-extract "$tmp/crawl.warc" 2>/dev/null | awk -F '\t' '$1 ~ /robots.txt$/ { print $1, $2 }')" \
	"http://a.test:8080/robots.txt http://a.test:8080/sitemap.xml" \
	"wa-extract reports the Sitemap line as a discovered URL"

# Another agent's product token falls back to the "*" group.
echo "http://a.test:8080/p1.html" | wa-fetch $R -A "other/2.0 (+http://x.test/)" >"$tmp/log"
is "$(cut -f 3,11 "$tmp/log")" "robots	disallow" "-A names the group that applies"

# The product token: a browser-like agent's "(compatible; NAME/..." names
# the group, or --robots-agent does.
cat >"$tmp/f/robots.txt" <<TXT
User-agent: *
Disallow: /p3

User-agent: Mozilla
Disallow: /p1

User-agent: mybot
Disallow: /p2
TXT
for p in 1 2 3; do echo "http://f.test:8080/p$p.html"; done >"$tmp/furls"
fverdicts() { cut -f 3 "$tmp/log" | tr '\n' ' '; }
moz="Mozilla/5.0 (compatible; mybot/1.0; +https://example.org/bot)"
wa-fetch $R -A "$moz" "$tmp/furls" >"$tmp/log"
is "$(fverdicts)" "200 robots 200 " "-A 'Mozilla/5.0 (compatible; mybot/1.0; ...)': the mybot group"
wa-fetch $R -A "$moz" --robots-agent otherbot "$tmp/furls" >"$tmp/log"
is "$(fverdicts)" "200 200 robots " "--robots-agent otherbot: the * group"
wa-fetch $R -A "$moz" --robots-agent MOZILLA "$tmp/furls" >"$tmp/log"
is "$(fverdicts)" "robots 200 200 " "--robots-agent Mozilla: that group, in any case"
wa-fetch $R -A "Mozilla/5.0 (X11; Linux x86_64)" "$tmp/furls" >"$tmp/log"
is "$(fverdicts)" "robots 200 200 " "without a compatible comment: the first product"
wa-fetch $R -A "mybot_x/2 (compatible; 360Spider)" "$tmp/furls" >"$tmp/log"
is "$(fverdicts)" "200 200 robots " "a compatible name of no letter: the first product's token"
for bad in "my bot" "mybot/1.0" "bot2" "" "b\xc3\xa9"; do
	exits 2 "--robots-agent '$bad' is refused" wa-fetch $R --robots-agent "$(printf "$bad")" "$tmp/furls"
done
like "$(cat "$tmp/stderr")" "^wa-fetch: --robots-agent: '.*' is no product token \\(letters, '_' and '-' only\\)" \
	"with the reason"
exits 2 "-A without a product token of letters is refused" wa-fetch $R -A "123/4.5" "$tmp/furls"
like "$(cat "$tmp/stderr")" "give --robots-agent" "and --robots-agent proposed"
exits 0 "but accepted with --robots-agent" wa-fetch $R -A "123/4.5" --robots-agent mybot "$tmp/furls"

# The default agent, with a contact URL.
echo "http://f.test:8080/p1.html" |
	wa-fetch $R --contact https://example.org/crawler -o "$tmp/contact.warc" >"$tmp/log"
is "$(grep -a -m1 '^User-Agent:' "$tmp/contact.warc" | tr -d '\r')" \
	"User-Agent: wa-fetch/$(wa-fetch --version | awk '{ print $NF }') (+https://example.org/crawler)" \
	"--contact URL: wa-fetch/VERSION (+URL)"
is "$(cut -f 3 "$tmp/log")" 200 "and the product token stays wa-fetch (the * group allows p1)"
exits 2 "--contact with -A is refused" wa-fetch $R -A "x/1" --contact https://example.org/ "$tmp/furls"
exits 2 "--contact with a space is refused" wa-fetch $R --contact "https://e.org/ x" "$tmp/furls"

# The cache: one fetch per site for 24 hours.
cache=$tmp/robots-cache
echo "http://a.test:8080/p1.html" | wa-fetch $R --robots-cache "$cache" >/dev/null
n=$(grep -c robots.txt "$tmp/nginx-a/logs/access.log")
like "$(head -1 "$cache/http_a.test_8080")" "^wa-robots 1 [0-9]{10} 200$" "the cache keeps robots.txt with its time"
same_file "$cache/http_a.test_8080" - "and the file after the line" <<TXT
$(head -1 "$cache/http_a.test_8080")
$(cat "$tmp/a/robots.txt")
TXT
echo "http://a.test:8080/private/x.html" | wa-fetch $R --robots-cache "$cache" >"$tmp/log"
is "$(grep -c robots.txt "$tmp/nginx-a/logs/access.log")" "$n" "a second run reads the cache"
is "$(cut -f 3 "$tmp/log")" robots "and obeys it"
old=$(( $(date +%s) - 90000 ))
sed -i "1s/.*/wa-robots 1 $old 200/" "$cache/http_a.test_8080"
echo "http://a.test:8080/p1.html" | wa-fetch $R --robots-cache "$cache" >/dev/null
is "$(grep -c robots.txt "$tmp/nginx-a/logs/access.log")" "$((n + 1))" "an entry older than 24 h is fetched again"
echo junk >"$cache/http_b.test_8080"
echo "http://b.test:8080/p1.html" | wa-fetch --allow-private -w 0 --resolve b.test:8080:$(t_addr 2) \
	--robots-cache "$cache" >/dev/null 2>"$tmp/err"
like "$(cat "$tmp/err")" "http_b.test_8080: not a robots cache entry" "a damaged entry is reported"
like "$(head -1 "$cache/http_b.test_8080")" "^wa-robots 1 [0-9]+ 404$" "and replaced"

done_testing
