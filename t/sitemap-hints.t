#!/bin/sh
# Sitemap hints (man/wa-formats.5, "Sitemap hints"): the rows wa-extract
# --hints writes for hand-made sitemaps (every W3C datetime form, bad
# dates and change frequencies, a sitemap index, one thread or two);
# wa-lambda --hints against estimates worked by hand (wa-lambda(1),
# "Sitemap hints"), a lying sitemap bounded; and the cycle gathering
# hints.tsv on a loopback web and estimating with it.
. "$(dirname "$0")/lib.sh"
T=$(printf '\t')

# warc OUT URL FILE...: resource records of type application/xml.
warc() {
	"$PY" - "$@" <<'END'
import sys
out, docs = sys.argv[1], sys.argv[2:]
recs = b""
for i in range(0, len(docs), 2):
    block = open(docs[i + 1], "rb").read()
    recs += (b"WARC/1.1\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
        b"WARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Target-URI: %s\r\n"
        b"Content-Type: application/xml\r\nContent-Length: %d\r\n\r\n"
        % (i, docs[i].encode(), len(block)) + block + b"\r\n\r\n")
open(out, "wb").write(recs)
END
}

# ---- wa-extract --hints ----
# Unix times worked out by hand: 2024-01-01 is day 19723 of the epoch,
# 2024-02-01 day 19754, 2024-02-29 day 19782 (86400 s a day).
cat >"$tmp/map.xml" <<'END'
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://a.example/y</loc><lastmod>2024</lastmod></url>
<url><loc>http://a.example/ym</loc><lastmod>2024-02</lastmod></url>
<url><loc>http://a.example/ymd</loc><lastmod> 2024-02-29 </lastmod><changefreq>daily</changefreq></url>
<url><loc>/hm</loc><lastmod>2024-02-29T10:30+01:00</lastmod></url>
<url><loc>http://a.example/hms</loc><lastmod>2024-02-29T10:30:15Z</lastmod></url>
<url><loc>http://a.example/frac</loc><lastmod>2024-02-29T10:30:15.987-05:30</lastmod></url>
<url><loc>http://a.example/feb29</loc><lastmod>2023-02-29</lastmod><changefreq>weekly</changefreq></url>
<url><loc>http://a.example/nozone</loc><lastmod>2024-01-01T10:00</lastmod></url>
<url><loc>http://a.example/1969</loc><lastmod>1969-12-31</lastmod></url>
<url><loc>http://a.example/hour24</loc><lastmod>2024-01-01T24:00Z</lastmod></url>
<url><loc>http://a.example/always</loc><changefreq>always</changefreq></url>
<url><loc>http://a.example/hourly</loc><changefreq>hourly</changefreq></url>
<url><loc>http://a.example/monthly</loc><changefreq>monthly</changefreq></url>
<url><loc>http://a.example/yearly</loc><changefreq>yearly</changefreq></url>
<url><loc>http://a.example/never</loc><changefreq>never</changefreq><lastmod>1970</lastmod></url>
<url><loc>http://a.example/Daily</loc><changefreq>Daily</changefreq></url>
<url><loc>http://a.example/none</loc></url>
</urlset>
END
cat >"$tmp/index.xml" <<'END'
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://a.example/map1.xml</loc><lastmod>2025-06-30T23:59:59Z</lastmod></sitemap>
<sitemap><loc>http://a.example/map2.xml</loc></sitemap>
</sitemapindex>
END
warc "$tmp/one.warc" http://a.example/map.xml "$tmp/map.xml" \
	http://a.example/index.xml "$tmp/index.xml"
ok "wa-extract --hints runs" wa-extract -j 1 --hints "$tmp/hints.tsv" "$tmp/one.warc"
m=http://a.example/map.xml
same_file "$tmp/hints.tsv" - "one row per entry with a lastmod or changefreq, each form exact" <<END
http://a.example/y$T$m${T}1704067200$T-
http://a.example/ym$T$m${T}1706745600$T-
http://a.example/ymd$T$m${T}1709164800${T}daily
http://a.example/hm$T$m${T}1709199000$T-
http://a.example/hms$T$m${T}1709202615$T-
http://a.example/frac$T$m${T}1709222415$T-
http://a.example/feb29$T$m$T-${T}weekly
http://a.example/always$T$m$T-${T}always
http://a.example/hourly$T$m$T-${T}hourly
http://a.example/monthly$T$m$T-${T}monthly
http://a.example/yearly$T$m$T-${T}yearly
http://a.example/never$T$m${T}0${T}never
http://a.example/map1.xml${T}http://a.example/index.xml${T}1751327999$T-
END
like "$(cat "$tmp/stderr")" \
	"one.warc: offset 0: http://a.example/map.xml: 5 sitemap hints left out, the first: lastmod is no W3C datetime: 2023-02-29" \
	"the bad ones are told with the file, offset and page"
like "$(cat "$tmp/stderr")" "13 sitemap hints" "and the summary counts the rows"
wa-extract -q "$tmp/one.warc" >"$tmp/links-plain"
wa-extract -q --hints "$tmp/h2" "$tmp/one.warc" >"$tmp/links-hints" 2>/dev/null
same_file "$tmp/links-hints" "$tmp/links-plain" "the links are the same with --hints"

# Many records on two threads: the same rows, messages and links as on one.
args=
for i in $(seq 1 40); do args="$args http://s$i.example/map.xml $tmp/map.xml"; done
warc "$tmp/many.warc" $args
wa-extract -j 1 -v --hints "$tmp/h-j1" "$tmp/many.warc" >"$tmp/l-j1" 2>"$tmp/e-j1"
wa-extract -j 2 -v --hints "$tmp/h-j2" "$tmp/many.warc" >"$tmp/l-j2" 2>"$tmp/e-j2"
is "$(wc -l <"$tmp/h-j1")" 480 "40 sitemaps give 480 rows"
same_file "$tmp/h-j2" "$tmp/h-j1" "-j 2 writes the hints of -j 1, byte for byte"
same_file "$tmp/e-j2" "$tmp/e-j1" "and the same messages"
same_file "$tmp/l-j2" "$tmp/l-j1" "and the same links"
exits 0 "-q silences the summary" wa-extract -q -j 2 --hints "$tmp/h-q" "$tmp/many.warc"

# ---- wa-lambda --hints ----
# One page visited daily at t0..t3, changed only between t1 and t2 (six
# hours before t2), without Last-Modified dates.
url=http://example.com/
printf "$url$T%s$T%s$T-\n" 1700000000 - 1700086400 0 1700172800 1 1700259200 0 \
	>"$tmp/bare.tsv"
sm=http://example.com/sitemap.xml
printf "$url$T$sm$T%s$T%s\n" 1699913600 - 1700151200 - >"$tmp/dates.tsv"
printf "$url$T$sm$T%s$T%s\n" 1699913600 daily 1700151200 daily >"$tmp/daily.tsv"
# Without dates, the ML estimate: 1 changed day, 2 unchanged: maximum of
# -2x + ln(1 - e^-x), x = ln(3/2) = 0.405465.
wa-lambda --prior 1,7 "$tmp/bare.tsv" >"$tmp/l0"
tsv_near "$tmp/l0" - 1e-9 "without hints: ML, ln(3/2)" <<END
$url${T}0.405465108108${T}ml${T}4${T}1${T}0.042600532946${T}1.50573669126$T-
END
# With the sitemap's dates: X = 1 of n = 3, T = 1 + 0.25 + 1 days:
# (0 - 1 / (3 ln(2/3))) / 2.25 = 0.365378; Jeffreys Gamma(1.5, 2.25).
wa-lambda --prior 1,7 --hints "$tmp/dates.tsv" "$tmp/bare.tsv" >"$tmp/l1"
tsv_near "$tmp/l1" - 1e-9 "a sitemap's lastmods date the change: the bias-reduced lastmod estimate" <<END
$url${T}0.365378290722${T}lastmod${T}4${T}1${T}0.0781880706109${T}1.73660620072${T}sitemap-lastmod
END
# daily, r = 1: (0.365378 x 2.25 + 1) / (2.25 + 1) = 0.560647.
wa-lambda --prior 1,7 --hints "$tmp/daily.tsv" "$tmp/bare.tsv" >"$tmp/l2"
tsv_near "$tmp/l2" - 1e-9 "daily moves it toward 1 a day by one pseudo-change in one day" <<END
$url${T}0.560646508962${T}lastmod${T}4${T}1${T}0.361822510423${T}1.50995813896${T}sitemap-lastmod,changefreq
END
# A page seen twice unchanged, two days apart, said weekly: the prior
# Gamma(1, 7) replaces the population's: 1 / (7 + 2).
printf "http://b.example/$T%s$T%s$T-\n" 1700000000 - 1700172800 0 >"$tmp/b.tsv"
printf "http://b.example/$T$sm$T-${T}weekly\n" >"$tmp/weekly.tsv"
wa-lambda --prior 1,7 --hints "$tmp/weekly.tsv" "$tmp/b.tsv" | cut -f2,3,8 >"$tmp/l3"
tsv_near "$tmp/l3" - 1e-9 "weekly on a page seen unchanged: 1 / (7 + 2)" <<END
0.111111111111${T}prior${T}none-changed,changefreq
END
# hourly cannot be: no change in 2 days, Jeffreys bound 1.92/2 a day.
printf "http://b.example/$T$sm$T-${T}hourly\n" >"$tmp/hourly.tsv"
is "$(wa-lambda --prior 1,7 --hints "$tmp/hourly.tsv" "$tmp/b.tsv")" \
	"$(wa-lambda --prior 1,7 "$tmp/b.tsv")" "hourly on a page seen unchanged 2 days is not believed"

# A lying sitemap: every lastmod "now" (a minute before each fetch), every
# changefreq always.  The page changed only once.
printf "$url$T$sm$T%s${T}always\n" 1699999940 1700086340 1700172740 1700259140 >"$tmp/lie.tsv"
is "$(wa-lambda --prior 1,7 --hints "$tmp/lie.tsv" "$tmp/bare.tsv")" "$(cat "$tmp/l0")" \
	"a lying sitemap on a page seen unchanged changes nothing"
# A page changed at every daily fetch: its fetches cannot refute "now",
# which would make each change a minute old: (X - 1) / T with T = 3
# minutes, 1440 a day.  Only dates once right about an unchanged interval
# count.
printf "http://c.example/$T%s$T%s$T-\n" 1700000000 - 1700086400 1 1700172800 1 1700259200 1 \
	>"$tmp/c.tsv"
sed "s|^$url|http://c.example/|" "$tmp/lie.tsv" >"$tmp/clie.tsv"
sed "s|always\$|-|" "$tmp/clie.tsv" >"$tmp/cdates.tsv"
wa-lambda --prior 1,7 "$tmp/c.tsv" >"$tmp/c0"
wa-lambda --prior 1,7 --hints "$tmp/cdates.tsv" "$tmp/c.tsv" >"$tmp/c1"
same_file "$tmp/c1" "$tmp/c0" "on a page changed at every fetch, lying dates are not used"
# On a page fetched every day that always changed, always is believed
# page by page; with a fitted prior the sitemap is judged by its record:
# refuted on every page that can tell (the unchanged ones), it is not
# believed on any.
cp "$tmp/c.tsv" "$tmp/mixed.tsv"
cp "$tmp/clie.tsv" "$tmp/mlie.tsv"
for i in 1 2 3 4 5 6; do
	sed "s|^$url|http://u$i.example/|" "$tmp/bare.tsv" >>"$tmp/mixed.tsv"
	sed "s|^$url|http://u$i.example/|" "$tmp/lie.tsv" >>"$tmp/mlie.tsv"
done
wa-lambda "$tmp/mixed.tsv" >"$tmp/m0" 2>/dev/null
wa-lambda --hints "$tmp/mlie.tsv" "$tmp/mixed.tsv" >"$tmp/m1" 2>"$tmp/m1.err"
same_file "$tmp/m1" "$tmp/m0" "a sitemap lying of seven pages changes none of their rates"
like "$(cat "$tmp/m1.err")" \
	"http://example.com/sitemap.xml: changefreq refuted on 6 of the 6 pages that tell: not believed" \
	"and is named as not believed"
# The refresh simulator's web, crawled without a sitemap and with a lying
# one: the same cost, to the last digit; an honest one lowers it.
if "$PY" -c "import numpy" 2>/dev/null; then
	for mode in none lying honest; do
		"$ROOT/scripts/sim-refresh" -q --pages 300 --cycles 6 --warmup 10d --lastmod 0 \
			--policies wa,oracle --sitemap $mode --out "$tmp/sim-$mode" >/dev/null
	done
	cost() { awk -F '\t' '$1 == "cost_wa" { print $2 }' "$tmp/sim-$1/summary.tsv"; }
	is "$(cost lying)" "$(cost none)" "sim-refresh: a lying sitemap costs wa nothing"
	ok "sim-refresh: an honest one lowers the cost" \
		awk -v h="$(cost honest)" -v n="$(cost none)" 'BEGIN { exit !(h < n) }'
fi
# Bad input.
printf "$url$T$sm${T}x${T}daily\n$url$T$sm$T-${T}sometimes\n$url$T$sm${T}5$T-\n" >"$tmp/bad.tsv"
exits 0 "bad hint rows are skipped" wa-lambda --prior 1,7 --hints "$tmp/bad.tsv" "$tmp/bare.tsv"
like "$(cat "$tmp/stderr")" "bad.tsv:1: lastmod is not a Unix time: x" "a bad lastmod is told with file and line"
like "$(cat "$tmp/stderr")" "bad.tsv:2: changefreq is not always.*: sometimes" "a bad changefreq too"
printf "$url$T$sm${T}9$T-\n$url$T$sm${T}5$T-\n" >"$tmp/unsorted.tsv"
# sort -k3,3n puts a "-" among the dates of 1970-01-01 (0).
{ printf "$url$T$sm${T}0${T}never\n$url$T$sm$T-${T}daily\n"
  printf "$url$T$sm$T%s$T-\n" 1699913600 1700151200; } >"$tmp/zero.tsv"
exits 0 "a - among the dates 0 is in order" \
	wa-lambda --prior 1,7 --hints "$tmp/zero.tsv" "$tmp/bare.tsv"
is "$(cut -f3,8 "$tmp/stdout")" "lastmod${T}sitemap-lastmod,changefreq" "and is read"
exits 1 "hints not sorted by lastmod stop wa-lambda" \
	wa-lambda --prior 1,7 --hints "$tmp/unsorted.tsv" "$tmp/bare.tsv"
like "$(cat "$tmp/stderr")" "unsorted.tsv:2: not sorted by lastmod" "naming the line"

# ---- the cycle ----
# A site of two pages and a sitemap, served without Last-Modified (ssi
# drops it), so that only the sitemap dates the changes.
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
	done_testing
	exit
fi
site=$tmp/site
mkdir "$site"
echo '<p>a</p>' >"$site/a.html"
echo '<p>b</p>' >"$site/b.html"
sitemap() {	# LASTMOD-OF-A
	cat >"$site/sitemap.xml" <<END
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://sm.test:8080/a.html</loc><lastmod>$1</lastmod></url>
<url><loc>http://sm.test:8080/b.html</loc><changefreq>weekly</changefreq></url>
</urlset>
END
}
sitemap 2027-01-01T00:00:00Z	# 1798761600, before the first cycle
# An old modification time: the sitemap rewritten in the same second would
# keep nginx's Last-Modified and ETag (same second, same size), and the
# third cycle's conditional request would get a 304.
touch -d @1600000000 "$site/sitemap.xml"
nginx_start sm "$(t_addr 5)" 8080 "$site" "ssi on;"
printf '%s\n' http://sm.test:8080/sitemap.xml http://sm.test:8080/a.html \
	http://sm.test:8080/b.html >"$tmp/seeds"
run_cycle() {	# STATE NOW [VAR=value...]
	s=$1 now=$2; shift 2
	wa-cycle --now "$now" "$s" WAIT=0 ALLOW_PRIVATE=1 G=100 \
		"RESOLVE=sm.test:8080:$(t_addr 5)" "$@"
}
st=$tmp/state
mkdir "$st" && cp "$tmp/seeds" "$st/seeds.tsv"
now1=1800000000 now2=1800086400 now3=1800172800
ok "cycle 1 runs" run_cycle "$st" $now1
same_file "$st/cycle-1/hints.tsv" - "the extract step writes hints.tsv, sorted" <<END
http://sm.test:8080/a.html${T}http://sm.test:8080/sitemap.xml${T}1798761600$T-
http://sm.test:8080/b.html${T}http://sm.test:8080/sitemap.xml$T-${T}weekly
END
is "$(grep '[.]html' "$st/cycle-1/history.tsv" | cut -f4 | sort -u)" - \
	"the site's pages come without Last-Modified"
ok "cycle 2 runs, nothing changed" run_cycle "$st" $now2
echo '<p>a, changed</p>' >"$site/a.html"
sitemap 2027-01-16T10:00:00Z	# 1800093600: 1800000000 + 86400 + 7200
ok "cycle 3 runs, a changed" run_cycle "$st" $now3
c3=$st/cycle-3
is "$(wc -l <"$c3/hints.tsv")" 3 "hints.tsv gathers the distinct rows of the cycles"
is "$(grep -c "^http://sm.test:8080/a.html$T" "$c3/history.tsv")" 3 "a was fetched in every cycle" ||
	for f in "$st"/cycle-*/plan.tsv "$st"/cycle-*/fetch.log; do
		grep -H "^http://sm.test:8080/a.html$T" "$f" | sed 's/^/#   /' >&2
	done
# a: intervals 1 (unchanged: the sitemap date is before its start, which
# corroborates it) and 2 (changed at 1800093600): n = 2, X = 1, T = (t2 -
# t1) + (t3 - 1800093600) in days, lambda = (0 - 1 / (2 ln(1/2))) / T.
want=$(awk -F '\t' -v OFS='\t' '$1 == "http://sm.test:8080/a.html" { t[++n] = $2 }
	END { T = (t[2] - t[1] + t[3] - 1800093600) / 86400
		printf "%.12g\tlastmod\tsitemap-lastmod\n", 1 / (2 * log(2)) / T }' "$c3/history.tsv")
grep "^http://sm.test:8080/a.html$T" "$c3/lambda.tsv" | cut -f2,3,8 >"$tmp/a-rate"
printf '%s\n' "$want" >"$tmp/a-want"
tsv_near "$tmp/a-rate" "$tmp/a-want" 1e-9 "the lambda step dates a's change by the sitemap"
# b: unchanged over E days, weekly believed: 1 / (7 + E).
want=$(awk -F '\t' '$1 == "http://sm.test:8080/b.html" { t[++n] = $2 }
	END { printf "%.12g\tprior\tnone-changed,changefreq\n", 1 / (7 + (t[n] - t[1]) / 86400) }' \
	"$c3/history.tsv")
grep "^http://sm.test:8080/b.html$T" "$c3/lambda.tsv" | cut -f2,3,8 >"$tmp/b-rate"
printf '%s\n' "$want" >"$tmp/b-want"
tsv_near "$tmp/b-rate" "$tmp/b-want" 1e-9 "and takes b's weekly as its prior"
off=$tmp/off
mkdir "$off" && cp "$tmp/seeds" "$off/seeds.tsv"
ok "SITEMAP_HINTS=no runs" run_cycle "$off" $now1 SITEMAP_HINTS=no
ok "and writes no hints.tsv" test ! -e "$off/cycle-1/hints.tsv"
is "$(cut -f8 "$off/cycle-1/lambda.tsv" | grep -c 'sitemap\|changefreq')" 0 \
	"nor uses any"
exits 2 "SITEMAP_HINTS is yes or no" run_cycle "$off" $now2 SITEMAP_HINTS=maybe

done_testing
