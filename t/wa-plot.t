#!/bin/sh
# src/cycle/wa-plot over a hand-made state directory of two cycles in the
# formats of wa-formats(5) and the rank.log of wa-pagerank -v: every data
# file against values computed by hand, the PNGs (signature, size, IHDR),
# no output under a final name when gnuplot fails or is missing, and the
# errors naming the file and line of bad input.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip_all "needs gnuplot (gnuplot-nox; scripts/deps installs it)"
T=$(printf '\t')
tsv() { tr '|' '\t'; }	# the tables below use | for tabs

s=$tmp/state
mkdir -p "$s/cycle-1" "$s/cycle-2"
ln -s cycle-2 "$s/current"

# Cycle 1: five requests in seconds 1000 to 1002 (rows in completion
# order), four of them 2xx or 304; f.test is not in the importance.
tsv >"$s/cycle-1/fetch.log" <<'EOF'
http://a.test/|1000|200|text/html|10|sha1:AAAA|-|-|-|-|allow
http://b.test/|1002|200|text/html|10|sha1:BBBB|-|-|-|-|allow
http://c.test/x.xml|1000|404|text/html|10|sha1:CCCC|-|-|-|-|allow
http://d.test/|1001|304|text/html|10|sha1:DDDD|999|"e"|0|-|allow
http://e.test/|-|robots|-|-|-|-|-|-|-|disallow
http://f.test/|1002|200|text/plain|10|sha1:FFFF|-|-|-|-|allow
EOF
tsv >"$s/cycle-1/importance.tsv" <<'EOF'
http://a.test/|0.25
http://b.test/|0.125
http://c.test/x.xml|0.0625
http://d.test/|0.5
http://g.test/|0.0625
EOF
cat >"$s/cycle-1/rank.log" <<'EOF'
wa-pagerank: 6 pages, 5 links in 1 slices; matrix in memory (0 MiB), vectors 12 MiB
wa-pagerank: iteration 1: importance L1 4.282e-02 L2 6.694e-03; usefulness L1 1.115e+00 L2 2.858e-01; 0.015 s
wa-pagerank: iterations 1/100, importance L1 4.28e-02 L2 6.69e-03
wa-pagerank: iteration 2: importance L1 7.782e-03 L2 2.176e-03; usefulness L1 1.270e+00 L2 3.235e-01; 0.016 s
wa-pagerank: iteration 3: importance L1 0.000e+00 L2 0.000e+00; usefulness L1 5.612e-01 L2 1.626e-01; 0.016 s
wa-pagerank: 3 iterations, last change 1.63e-01 (L2), 0.05 s
EOF
# The refresh periods: a.test 22600 - 1000, d.test 87400 - 1001 and
# b.test 3602 - 1002 seconds.
tsv >"$s/cycle-1/next.tsv" <<'EOF'
http://a.test/|refresh|5|22600
http://x.test/|discover-html|4|-
http://d.test/|period|3|87400
http://f.test/|now|2|-
http://b.test/|refresh|1|3602
EOF
tsv >"$s/cycle-1/state.tsv" <<'EOF'
http://a.test/|html|0.25|0.1|0.5|1000|-
http://b.test/|html|0.125|0.1|0.5|1002|-
http://c.test/x.xml|-|0.0625|-|-|-|-
http://d.test/|html|0.5|0.1|0.5|1001|-
http://f.test/|other|-|-|0.5|1002|-
http://x.test/|-|0.0625|-|-|-|-
EOF

# Cycle 2: requests at 5000 to 5149, so 50 bins of int(149 / 50) + 1 = 3 s;
# a rank.log without usefulness; the refresh plan of wa-schedule --plan kept
# as frequencies.tsv: periods 21600, 86400, 172800 s and a page not
# refreshed.
tsv >"$s/cycle-2/fetch.log" <<'EOF'
http://a.test/|5001|304|text/html|10|sha1:AAAA|-|-|0|-|allow
http://b.test/|5000|200|text/html|12|sha1:BBBC|-|-|1|-|allow
http://c.test/x.xml|5002|200|text/xml|10|sha1:CCCC|-|-|-|-|allow
http://h.test/|5149|dns|-|-|-|-|-|-|-|-
http://d.test/|5003|200|text/html|10|sha1:DDDD|-|-|0|-|allow
EOF
tsv >"$s/cycle-2/importance.tsv" <<'EOF'
http://a.test/|0.5
http://b.test/|3.0517578125e-05
http://c.test/x.xml|0.25
http://d.test/|0.125
http://h.test/|0.124969482421875
EOF
cat >"$s/cycle-2/rank.log" <<'EOF'
wa-pagerank: iteration 1: importance L1 1.000e-03 L2 5.000e-04; 0.001 s
wa-pagerank: iteration 2: importance L1 2.5e-7 L2 1e-7; 0.001 s
EOF
cp "$s/cycle-1/next.tsv" "$s/cycle-1/state.tsv" "$s/cycle-2/"
tsv >"$s/cycle-2/frequencies.tsv" <<'EOF'
http://a.test/|4|26601|1
http://b.test/|1|91400|0
http://c.test/x.xml|0|-|0
http://d.test/|0.5|177803|0
EOF
cp -R "$s" "$tmp/pristine"

o=$tmp/out
ok "wa-plot draws the two cycles" wa-plot -q --size 640x480 -o "$o" "$s"
is "$(cat "$tmp/stdout" "$tmp/stderr")" "" "-q: nothing on standard output or error"

# Cycle 1 in request time order: a (1000), d (1001), then b and f
# (1002) in log order; f has no importance.  Cycle 2: b, a, c, d.
tsv >"$tmp/want" <<'EOF'
1|1|1000|http://a.test/|0.25|0.25
1|2|1001|http://d.test/|0.5|0.75
1|3|1002|http://b.test/|0.125|0.875
1|4|1002|http://f.test/|0|0.875
2|1|5000|http://b.test/|3.0517578125e-05|3.0517578125e-05
2|2|5001|http://a.test/|0.5|0.500030517578125
2|3|5002|http://c.test/x.xml|0.25|0.750030517578125
2|4|5003|http://d.test/|0.125|0.875030517578125
EOF
tsv_near "$o/importance.tsv" "$tmp/want" 1e-12 "importance.tsv: cumulative importance in request order"

tsv >"$tmp/want" <<'EOF'
1|1|4.282e-02|6.694e-03|1.115e+00|2.858e-01
1|2|7.782e-03|2.176e-03|1.270e+00|3.235e-01
1|3|0.000e+00|0.000e+00|5.612e-01|1.626e-01
2|1|1.000e-03|5.000e-04|-|-
2|2|2.5e-7|1e-7|-|-
EOF
same_file "$o/convergence.tsv" "$tmp/want" "convergence.tsv: the residuals of every iteration"

# Bins of a quarter decade, 10^(k/4) to 10^((k+1)/4): 2600 s in k = 13,
# 21600 in 17, 86399 and 86400 in 19, 172800 in 20.
tsv >"$tmp/want" <<'EOF'
1|1778.28|3162.28|1
1|3162.28|5623.41|0
1|5623.41|10000|0
1|10000|17782.8|0
1|17782.8|31622.8|1
1|31622.8|56234.1|0
1|56234.1|100000|1
2|17782.8|31622.8|1
2|31622.8|56234.1|0
2|56234.1|100000|1
2|100000|177828|1
EOF
same_file "$o/refresh.tsv" "$tmp/want" "refresh.tsv: log-binned periods, from next.tsv or frequencies.tsv"

{
	printf '1\t0\t1\t2\t2\n1\t1\t1\t1\t1\n1\t2\t1\t2\t2\n'
	# 5000-5002 in bin 0, 5003 in bin 1, 5149 in bin 49 of 3 s each.
	b=0
	while [ $b -le 49 ]; do
		case $b in 0) n=3 r=1 ;; 1 | 49) n=1 r=0.333333 ;; *) n=0 r=0 ;; esac
		printf '2\t%d\t3\t%d\t%s\n' $((b * 3)) $n $r
		b=$((b + 1))
	done
} >"$tmp/want"
same_file "$o/fetch-rate.tsv" "$tmp/want" "fetch-rate.tsv: requests per bin and per second"

png_ok() {	# FILE WIDTH HEIGHT: a PNG of that size with more than a blank image
	[ "$(od -An -tx1 -N16 "$1" | tr -d ' \n')" = 89504e470d0a1a0a0000000d49484452 ] &&
	[ "$(od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 "x" $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')" = "$2x$3" ] &&
	[ "$(wc -c <"$1")" -gt 4000 ]
}
for p in importance convergence refresh fetch-rate; do
	ok "$p.png is a 640x480 PNG" png_ok "$o/$p.png" 640 480
done
is "$(ls -A "$o" | tr '\n' ' ')" "convergence.png convergence.tsv fetch-rate.png fetch-rate.tsv importance.png importance.tsv refresh.png refresh.tsv " \
	"nothing else in the output directory"

ok "the default directory is STATE/plots" wa-plot "$s"
is "$(cat "$tmp/stdout")" "$(printf '%s\n' "$s/plots/importance.png" "$s/plots/convergence.png" \
	"$s/plots/refresh.png" "$s/plots/fetch-rate.png")" "without -q the absolute paths of the four plots"
like "$(cat "$tmp/stderr")" '^wa-plot: cycles 1 2: 8 pages fetched, 5 rank iterations, 6 refresh periods' \
	"without -q a summary on standard error"
ok "the default size is 800x600" png_ok "$s/plots/refresh.png" 800 600
same_file "$s/plots/importance.tsv" "$o/importance.tsv" "the same data"
ok "a second run replaces the files" wa-plot -q "$s"

mv "$s/cycle-1" "$tmp/cycle-1"
ok "a removed cycle directory is left out (-q and -o bundled)" wa-plot -qo "$tmp/only2" "$s"
is "$(cat "$tmp/stdout")" "" "  -qo is quiet"
is "$(cut -f1 "$tmp/only2"/*.tsv | sort -u)" 2 "only cycle 2 is drawn"
mv "$tmp/cycle-1" "$s/cycle-1"

# A cycle in which nothing was fetched, refreshed or ranked by -v gets
# plots that say no data.
e=$tmp/empty
mkdir -p "$e/cycle-1"
ln -s cycle-1 "$e/current"
printf 'http://e.test/\t-\trobots\t-\t-\t-\t-\t-\t-\t-\tdisallow\n' >"$e/cycle-1/fetch.log"
printf 'http://e.test/\t1\n' >"$e/cycle-1/importance.tsv"
printf 'wa-pagerank: iteration 1: importance L1 0.000e+00 L2 0.000e+00; 0.000 s\n' >"$e/cycle-1/rank.log"
printf 'http://e.test/\tseed\t1\t-\n' >"$e/cycle-1/next.tsv"
printf 'http://e.test/\t-\t1\t-\t-\t-\t-\n' >"$e/cycle-1/state.tsv"
ok "a cycle without fetches" wa-plot -q --size 300x200 "$e"
is "$(cat "$e/plots/importance.tsv" "$e/plots/refresh.tsv" "$e/plots/fetch-rate.tsv")" "" "has empty data files"
ok "and PNGs all the same" png_ok "$e/plots/fetch-rate.png" 300 200
ok "at the size of the first plots" wa-plot -q --size 640x480 -o "$tmp/nodata" "$e"
for p in importance convergence refresh fetch-rate; do
	ok "$p.png of the two cycles is not the one of no data" \
		eval '! cmp -s "$o/$p.png" "$tmp/nodata/$p.png"'
done

# The letter of the release before still works this release: -s WxH as
# --size WxH, with a warning line.
ok "the old letter -s" wa-plot -q -s 640x480 -o "$tmp/old-s" "$e"
is "$(cat "$tmp/stderr")" "wa-plot: -s is now --size; the old spelling goes in the next release" \
	"a warning line naming the new spelling"
for p in importance convergence refresh fetch-rate; do
	same_file "$tmp/old-s/$p.png" "$tmp/nodata/$p.png" "$p.png as with --size"
done

# gnuplot failing at the third plot: nothing under a final name, no
# temporary files left.
real=$(command -v gnuplot)
mkdir "$tmp/failbin"
cat >"$tmp/failbin/gnuplot" <<EOF
#!/bin/sh
[ \$# = 0 ] || exec "$real" "\$@"
cat >"$tmp/gnuplot.in"
grep -q refresh "$tmp/gnuplot.in" && { echo 'line 9: simulated failure' >&2; exit 1; }
exec "$real" "$tmp/gnuplot.in"
EOF
chmod +x "$tmp/failbin/gnuplot"
exits 1 "gnuplot failing: exit 1" env PATH="$tmp/failbin:$PATH" wa-plot -q -o "$tmp/fail" "$s"
like "$(cat "$tmp/stderr")" 'simulated failure' "gnuplot's message is shown"
like "$(tail -1 "$tmp/stderr")" '^wa-plot: refresh.png: gnuplot failed$' "and the plot named"
is "$(ls -A "$tmp/fail")" "" "no file left in the output directory"

# Without gnuplot in PATH: the same tools but gnuplot.
mkdir "$tmp/nobin"
for c in sh awk sort mktemp mkdir rm mv sed grep wc cat readlink; do
	ln -s "$(command -v $c)" "$tmp/nobin/$c"
done
exits 1 "no gnuplot: exit 1" env PATH="$tmp/nobin" "$ROOT/src/cycle/wa-plot" -q -o "$tmp/none" "$s"
like "$(cat "$tmp/stderr")" '^wa-plot: gnuplot not found' "says gnuplot is missing"
ok "and writes nothing" test ! -e "$tmp/none"

# Bad input: the error names the file and line.
bad() {	# FILE LINE CONTENT REGEX MSG: replaces line LINE of cycle-2/FILE
	rm -rf "$s" && cp -R "$tmp/pristine" "$s"
	awk -v n="$2" -v l="$3" 'NR == n { print l; next } { print }' "$tmp/pristine/cycle-2/$1" >"$s/cycle-2/$1"
	exits 1 "$5: exit 1" wa-plot -q -o "$tmp/bad" "$s"
	like "$(cat "$tmp/stderr")" "^wa-plot: $s/cycle-2/$1:$2: $4" "$5: the error names $1:$2"
}
bad fetch.log 3 "http://c.test/x.xml${T}soon${T}200" 'time is not Unix seconds: soon' "a bad time"
bad fetch.log 2 "http://b.test/" 'not a fetch log row' "a short fetch log row"
bad fetch.log 1 "http://a.test/${T}-${T}200" 'status 200 without a time' "a 200 without a time"
bad importance.tsv 4 "http://d.test/${T}0x1p-3" 'not an importance row' "a hexadecimal score"
bad rank.log 2 "wa-pagerank: iteration 2: importance L1 2.5e-7 L2 nan; 0.001 s" 'residual is not a number' \
	"a residual that is NaN"
bad rank.log 1 "wa-pagerank: iteration 1: 0.001 s" 'an iteration without residuals' "an iteration without residuals"
bad frequencies.tsv 2 "http://b.test/${T}-1${T}-${T}0" 'not a refresh plan row' "a negative frequency"
bad frequencies.tsv 3 "http://c.test/x.xml${T}1e-310${T}-${T}0" 'f too small for a period in seconds' \
	"a frequency whose period is infinite"
rm "$s/cycle-2/frequencies.tsv" "$tmp/pristine/cycle-2/frequencies.tsv"
bad next.tsv 5 "http://b.test/${T}refresh${T}1${T}-" 'a refresh row without a due time' "a refresh row without due time"
bad state.tsv 1 "http://a.test/${T}html${T}0.25${T}0.1${T}0.5${T}-${T}-" \
	'http://a.test/: no last access for a page to refresh' "a page to refresh without access"
bad state.tsv 2 "http://b.test/${T}html${T}0.125${T}0.1${T}0.5${T}3602${T}-" \
	'http://b.test/: due no later than its last access' "a due time before the access"
grep -v '^http://d[.]test/' "$tmp/pristine/cycle-2/state.tsv" >"$s/cycle-2/state.tsv"
exits 1 "a page of next.tsv not in state.tsv: exit 1" wa-plot -q -o "$tmp/bad" "$s"
is "$(cat "$tmp/stderr")" "wa-plot: $s/cycle-2/next.tsv:3: http://d.test/: not in the page state" \
	"names the row of next.tsv"
is "$(ls -A "$tmp/bad")" "" "bad input leaves no file in the output directory"

printf 'wa-pagerank: 3 iterations\n' >"$s/cycle-2/rank.log"
exits 1 "a rank.log without iterations: exit 1" wa-plot -q -o "$tmp/bad" "$s"
is "$(cat "$tmp/stderr")" "wa-plot: $s/cycle-2/rank.log: no iteration lines (wa-pagerank -v writes them)" \
	"says so"
rm "$s/cycle-2/rank.log"
exits 1 "a missing rank.log: exit 1" wa-plot -q -o "$tmp/bad" "$s"
is "$(cat "$tmp/stderr")" "wa-plot: $s/cycle-2/rank.log: no such file" "names it"
rm "$s/current"
exits 1 "no current cycle: exit 1" wa-plot -q "$s"
like "$(cat "$tmp/stderr")" "^wa-plot: $s/current: no complete cycle" "says so"
exits 1 "no state directory: exit 1" wa-plot "$tmp/nothing"
is "$(cat "$tmp/stderr")" "wa-plot: $tmp/nothing: no such directory" "names it"

# Usage.
exits 2 "no STATE: exit 2" wa-plot -q
exits 2 "two STATEs: exit 2" wa-plot "$s" "$s"
exits 2 "an unknown option: exit 2" wa-plot -x "$s"
like "$(head -1 "$tmp/stderr")" '^wa-plot: unknown option -x$' "named"
exits 2 "--size 800: exit 2" wa-plot --size 800 "$s"
exits 2 "--size 10000x10: exit 2" wa-plot --size 10000x10 "$s"
ok "-h" wa-plot -h
like "$(wc -l <"$tmp/stdout")" '^(1[0-9]|2[0-3])$' "fits a screen"
ok "--version" wa-plot --version
like "$(cat "$tmp/stdout")" '^wa-plot ' "prints the version"

done_testing
