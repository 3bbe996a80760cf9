#!/bin/sh
# The web of make demo: scripts/gen-web is deterministic and writes a
# consistent web (every link and sitemap entry has its file, the XML is
# well-formed, the rates cover every page); scripts/web-change, run over
# 200 simulated days in 40 spans, changes each page as a Poisson process of
# its true rate (counts per page and per rate within wide bounds, gaps
# exponential), with the mtime of each page at its last change instant and
# its revision number raised by its number of changes.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_all "needs python3"
T=$(printf '\t')
mtime=1767225600

ok "gen-web writes a web" gen-web "$tmp/a"
ok "again, the same seed" gen-web "$tmp/b"
ok "and another seed" gen-web -s 2 "$tmp/c"
listing() { (cd "$1" && find . -type f -printf '%P %s %T@\n' | sort); }
ok "the same seed gives the same files" diff -r "$tmp/a" "$tmp/b"
is "$(listing "$tmp/a" | md5sum)" "$(listing "$tmp/b" | md5sum)" "with the same sizes and mtimes"
ok "another seed gives another web" sh -c "! diff -rq '$tmp/a' '$tmp/c' >/dev/null"
is "$(listing "$tmp/a" | awk '$3 != '$mtime'.0000000000' | wc -l)" 0 \
	"every file's mtime is 2026-01-01 (the -t default)"
gen-web -t 1500000000 "$tmp/t"
is "$(find "$tmp/t" -name '*.html' -newermt @1500000000 | wc -l)" 0 "-t sets the mtime"

w=$tmp/a
rates=$w/rates.tsv
ok "rates.tsv is in URL byte order" sort -c -t "$T" -k1,1 "$rates"
(cd "$w" && find . -type f ! -name rates.tsv ! -name seeds.txt | sed 's|^\./||' | sort) >"$tmp/files"
cut -f3 "$rates" | sort >"$tmp/rated"
same_file "$tmp/rated" "$tmp/files" "rates.tsv has a row for every file of the web"
is "$(awk -F "$T" '{ f = $1; sub("^http://", "", f); sub(":8080/", "/", f);
	sub("/$", "/index.html", f); if (f != $3) print }' "$rates")" "" "and its file is the URL's path"
is "$(awk -F "$T" '!($2 >= 0 && $2 <= 10)' "$rates")" "" "rates are changes/day from 0 to 10"
is "$(awk -F "$T" '$2 > 0' "$rates" | wc -l | awk '$1 >= 50')" "$(awk -F "$T" '$2 > 0' "$rates" | wc -l)" \
	"at least 50 pages change"
sort "$w/seeds.txt" | cut -f1 >"$tmp/seeds"
is "$(cut -f1 "$rates" | comm -13 - "$tmp/seeds")" "" "every seed is a page of the web"
find "$w" -name '*.xml' -o -name '*.rss' -o -name '*.atom' >"$tmp/xml"
like "$(wc -l <"$tmp/xml")" '^([2-9][0-9]|[1-9][0-9][0-9])$' "at least 20 XML pages"
like "$(find "$w" -name '*.html' | wc -l)" '^[1-9][0-9][0-9]$' "at least 100 HTML pages"
if command -v xmllint >/dev/null; then
	ok "the XML pages are well-formed" xargs xmllint --noout <"$tmp/xml"
fi
# Every target of an href, an xlink:href, a sitemap loc or an RSS link is
# a file of the web: on the same host if the path is absolute.
(cd "$w" && grep -oH -e 'href="[^"]*"' -e '<loc>[^<]*</loc>' -e '<link>[^<]*</link>' \
	-- */*.* */*/*.* 2>/dev/null) |
	sed -e 's/:href="\([^"]*\)"$/ \1/' -e 's/:<loc>\(.*\)<\/loc>$/ \1/' \
		-e 's/:<link>\(.*\)<\/link>$/ \1/' |
	awk '{ split($1, p, "/"); t = $2
		if (t ~ /^\//) t = p[1] t; else { sub("^http://", "", t); sub(":8080", "", t) }
		if (t ~ /\/$/) t = t "index.html"
		print t }' | sort -u >"$tmp/targets"
like "$(wc -l <"$tmp/targets")" '^[1-9][0-9][0-9]$' "the links have many targets"
is "$(comm -23 "$tmp/targets" "$tmp/files")" "" "and each of them is a file of the web"
is "$(cut -f3 "$rates" | grep -v -e robots.txt -e '[.]css$' | sed "s|^|$w/|" | xargs grep -l 'revision 0' | wc -l)" \
	"$(cut -f3 "$rates" | grep -cv -e robots.txt -e '[.]css$')" "every page has its revision line"
is "$(awk -F "$T" '$2 > 0 && ($3 ~ /robots.txt$/ || $3 ~ /[.]css$/)' "$rates")" "" \
	"and robots.txt and the style sheet, which have none, never change"

# 200 days in 40 spans of 5 days.
cp -a "$w" "$tmp/w1"
cp -a "$w" "$tmp/w2"
start=$((mtime + 86400)) days=200 span=$((5 * 86400))
: >"$tmp/changes"
bad=0 from=$start
while [ $from -lt $((start + days * 86400)) ]; do
	to=$((from + span))
	web-change "$tmp/w1" $from $to >"$tmp/span" || bad=1
	awk -F "$T" -v f=$from -v t=$to '!($2 > f && $2 <= t) { print "#   out of span:", $0; e = 1 }
		END { exit e }' "$tmp/span" || bad=1
	cat "$tmp/span" >>"$tmp/changes"
	[ $from = $start ] && cp "$tmp/span" "$tmp/span1"
	from=$to
done
is $bad 0 "web-change over 40 spans: every change inside its span (FROM, TO]"
web-change "$tmp/w2" $start $((start + span)) >"$tmp/again"
same_file "$tmp/again" "$tmp/span1" "the same span gives the same changes"
like "$(wc -l <"$tmp/span1")" '^[1-9][0-9]+$' "  (some dozens in 5 days)"

# Counts per page: Poisson of mean r * 200 days, within 6 standard
# deviations and 2 (a chance of about 1e-9 to fail for a page).
cut -f1 "$tmp/changes" | sort | uniq -c | awk '{ print $2 "\t" $1 }' >"$tmp/counts"
join -t "$T" -a 1 -e 0 -o 0,1.2,2.2,1.3 "$rates" "$tmp/counts" >"$tmp/per-page"
is "$(awk -F "$T" -v d=$days '{ m = $2 * d; s = sqrt(m) }
	$3 < m - 6 * s - 2 || $3 > m + 6 * s + 2 { print "#  ", $1, "rate", $2, "changes", $3 }' "$tmp/per-page")" "" \
	"each page changes about rate x 200 days times"
is "$(awk -F "$T" '$2 == 0 && $3 != 0' "$tmp/per-page")" "" "a page of rate 0 never changes"
# Per rate: the total over its pages within 5 standard deviations; the
# index of dispersion (sum (c - m)^2 / m, chi-square with as many degrees
# as pages) between a third and three times the pages, where there are 20.
is "$(awk -F "$T" -v d=$days '$2 > 0 { m = $2 * d; n[$2]++; c[$2] += $3; x[$2] += ($3 - m)^2 / m }
	END { for (r in n) { m = n[r] * r * d
		if (c[r] < m - 5 * sqrt(m) || c[r] > m + 5 * sqrt(m)) print "#   rate", r, "total", c[r], "expected", m
		if (n[r] >= 20 && (x[r] < n[r] / 3 || x[r] > 3 * n[r])) print "#   rate", r, "dispersion", x[r], "pages", n[r] } }' \
	"$tmp/per-page")" "" "the totals per rate are near pages x rate x days, with Poisson dispersion"
# Gaps between the changes of a page, in units of its mean gap 1/r: an
# exponential has half of them below ln 2 and a mean of 1.
sort -t "$T" -s -k1,1 "$tmp/changes" | join -t "$T" "$rates" - |
	awk -F "$T" '$1 == u { g = ($4 - t) * $2 / 86400; n++; s += g; if (g < log(2)) b++ }
		{ u = $1; t = $4 } END { printf "%d %.4f %.4f\n", n, b / n, s / n }' >"$tmp/gaps"
read -r ngaps below mean <"$tmp/gaps"
ok "the gaps of $ngaps changes are exponential: $below below the median ln 2 / r" \
	awk -v n="$ngaps" -v b="$below" 'BEGIN { exit !(n > 1000 && b > 0.5 - 5 * sqrt(0.25 / n) && b < 0.5 + 5 * sqrt(0.25 / n)) }'
ok "  and their mean is 1 / r ($mean)" awk -v n="$ngaps" -v m="$mean" 'BEGIN { exit !(m > 1 - 5 / sqrt(n) && m < 1 + 5 / sqrt(n)) }'

# The files: the revision number counts the changes, the mtime is the
# instant of the last one, and pages without changes are as written.
sort -t "$T" -s -k1,1 "$tmp/changes" | awk -F "$T" '{ last[$1] = $2 } END { for (u in last) print u "\t" last[u] }' |
	sort -t "$T" -k1,1 >"$tmp/last"
join -t "$T" -a 1 -e - -o 0,1.3,2.2 "$rates" "$tmp/last" |
	join -t "$T" -a 1 -e 0 -o 0,1.2,1.3,2.2 - "$tmp/counts" >"$tmp/want"
while IFS="$T" read -r url file last n; do
	m=$(stat -c %Y "$tmp/w1/$file")
	r=$(grep -o 'revision [0-9]*' "$tmp/w1/$file" | cut -d' ' -f2)
	[ "$last" = - ] && last=$mtime && { cmp -s "$tmp/w1/$file" "$w/$file" || echo "#   $url changed"; }
	[ "$m" = "$last" ] || echo "#   $url mtime $m, want $last"
	[ -z "$r" ] || [ "$r" = "$n" ] || echo "#   $url revision $r, want $n"
done <"$tmp/want" >"$tmp/files-bad"
is "$(cat "$tmp/files-bad")" "" "mtime at the last change, revision = changes, the rest untouched"

exits 2 "web-change without a span: usage error" web-change "$w" 1
exits 2 "a span that ends before it starts: usage error" web-change "$w" 2 1
exits 1 "a directory without rates.tsv: error" web-change "$tmp/nothing" 1 2
like "$(cat "$tmp/stderr")" "nothing/rates.tsv" "naming the file"
printf 'http://x.test:8080/\tfast\tx\n' >"$tmp/c/rates.tsv"
exits 1 "a bad rates.tsv row: error" web-change "$tmp/c" 1 2
like "$(cat "$tmp/stderr")" "rates.tsv:1: not url, rate, file" "with its file and line"
exits 2 "gen-web without a directory: usage error" gen-web

done_testing
