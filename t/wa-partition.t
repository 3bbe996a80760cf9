#!/bin/sh
# wa-partition: superpages for k crawlers (Teng et al., "Collaborative Web
# Crawling", 1999).  Rules are checked by t/partition-verify.py, which
# computes SURT keys and looks rules up on its own; load and crossing links
# on hand-made graphs whose best split is known (related sites far apart in
# key order, a big site cut along its directories); the target (load within
# 5%, fewer crossing links than hashing by host) on gen-graph -m web;
# tagging (-a) against the verifier's lookup; weights, rates,
# re-partitioning; bad input and usage errors.
. "$(dirname "$0")/lib.sh"

verify() { python3 "$T_DIR/partition-verify.py" "$@"; }

# H hosts h0..h(H-1).example of P pages each, page i linking to page i+1
# of its host in a ring: no link between hosts.
rings() {
	awk -v H="$1" -v P="$2" 'BEGIN {
		for (h = 0; h < H; h++)
			for (i = 0; i < P; i++)
				printf "http://h%d.example/p%02d\thttp://h%d.example/p%02d\n",
				    h, i, h, (i + 1) % P
	}'
}

# --- The known best splits -------------------------------------------

rings 8 10 >"$tmp/rings"
for k in 1 2 4 8; do
	exits 0 "8 rings of 10 pages, k=$k" wa-partition -q -n $k "$tmp/rings"
	mv "$tmp/stdout" "$tmp/rules$k"
	is "$(verify check "$tmp/rules$k" $k | cut -d' ' -f2-)" \
	    "rules, parts $(seq -s ' ' 0 $((k - 1)))" "k=$k: rules sorted, every part used"
	is "$(verify eval $k "$tmp/rings" "$tmp/rules$k")" "1.0000 0.0000" \
	    "k=$k: 80/k pages each, no link crosses: hosts stay whole"
done
wa-partition -q --algorithm 1 -n 4 "$tmp/rings" >"$tmp/rules-p1"
is "$(verify eval 4 "$tmp/rings" "$tmp/rules-p1")" "1.0000 0.0000" \
    "Partition I (--algorithm 1): 20 pages each too"

# Two hosts, one of two directories of 6 and 2 pages, the other of 8
# pages, each a ring; k=2 has one best split (host against host).
{
	for d in a b; do
		n=6; [ $d = b ] && n=2
		i=0
		while [ $i -lt $n ]; do
			printf 'http://x.example/%s/%d\thttp://x.example/%s/%d\n' $d $i $d $(((i + 1) % n))
			i=$((i + 1))
		done
	done
	i=0
	while [ $i -lt 8 ]; do
		printf 'http://y.example/%d\thttp://y.example/%d\n' $i $(((i + 1) % 8))
		i=$((i + 1))
	done
} >"$tmp/two"
wa-partition -q -n 2 "$tmp/two" >"$tmp/rules-two"
cut -f1 "$tmp/two" | wa-partition -a "$tmp/rules-two" >"$tmp/tagged"
is "$(cut -f2 "$tmp/tagged" | sort | uniq -c | awk '{ printf "%s ", $1 }')" "8 8 " \
    "k=2: 8 pages a part"
is "$(cut -d/ -f3 "$tmp/tagged" | sort -u | wc -l)" 2 "and the two hosts ..."
is "$(awk -F '\t' '{ split($1, u, "/"); print u[3], $2 }' "$tmp/tagged" | sort -u | wc -l)" 2 \
    "... go to different parts"
is "$(verify eval 2 "$tmp/two" "$tmp/rules-two")" "1.0000 0.0000" "k=2: no link crosses"
# k=4: 4 pages a part, so the rings of 6 and 8 are cut, 2 links each at
# least: 4 of 16 links is the best, and the directory of 2 stays whole.
wa-partition -q -n 4 "$tmp/two" >"$tmp/rules-two4"
is "$(verify eval 4 "$tmp/two" "$tmp/rules-two4")" "1.0000 0.2500" "k=4: 4 pages a part, 4 links cross"
is "$(grep '/b/' "$tmp/two" | cut -f1 | wa-partition -a "$tmp/rules-two4" | cut -f2 | sort -u | wc -l)" 1 \
    "k=4: the directory of 2 pages in one part"

# --- Related sites and big sites (Partition II) --------------------------

# The 8 rings again, and each page of h0..h3 linking to its twin in
# h4..h7: related sites that are not neighbours in key order.  k=4: one
# best split, each pair of twins in a part of 20 pages, no link crossing.
awk '{ print } { split($1, u, "/"); h = substr(u[3], 2, 1) }
    h < 4 { t = $1; sub("h" h, "h" (h + 4), t); print $1 "\t" t }' "$tmp/rings" >"$tmp/twins"
wa-partition -q -n 4 "$tmp/twins" >"$tmp/rules-twins"
is "$(verify eval 4 "$tmp/twins" "$tmp/rules-twins")" "1.0000 0.0000" \
    "twin sites scattered in key order: each pair in a part, no link crosses"
set -- $(verify eval 4 "$tmp/twins" range)
is "$*" "1.0000 0.3333" "(the URLs in key order cut in 4 runs: 40 of 120 links cross)"

# A site of 40 pages in 4 directories of 10 (rings, and a chain d0 -> d1
# -> d2 -> d3 of one link each) and 4 sites of 10 pages (rings), s0 and s2
# related, s1 and s3 related (10 links each): 103 links.  k=4, 20 pages a
# part: the big site must be cut; its best cut is between d1 and d2, and
# the related sites pair up, so 1 link of 103 crosses (0.0097).
{
	for d in 0 1 2 3; do
		for i in 0 1 2 3 4 5 6 7 8 9; do
			printf 'http://big.example/d%d/p%d\thttp://big.example/d%d/p%d\n' $d $i $d $(((i + 1) % 10))
		done
		[ $d -lt 3 ] && printf 'http://big.example/d%d/p0\thttp://big.example/d%d/p0\n' $d $((d + 1))
	done
	for s in 0 1 2 3; do
		for i in 0 1 2 3 4 5 6 7 8 9; do
			printf 'http://s%d.example/p%d\thttp://s%d.example/p%d\n' $s $i $s $(((i + 1) % 10))
			[ $s -lt 2 ] && printf 'http://s%d.example/p%d\thttp://s%d.example/p%d\n' $s $i $((s + 2)) $i
		done
	done
} >"$tmp/bigsite"
wa-partition -q -n 4 "$tmp/bigsite" >"$tmp/rules-big"
is "$(verify eval 4 "$tmp/bigsite" "$tmp/rules-big")" "1.0000 0.0097" \
    "a big site is cut along its directories, related small sites pair up: 1 of 103 links crosses"
verify tag "$tmp/rules-big" "$tmp/bigsite" |
    awk -F '\t' '{ split($1, u, "/"); d = u[3] "/" (u[3] == "big.example" ? u[4] : ""); print d, $3 }' |
    sort -u >"$tmp/dirs"
is "$(cut -d' ' -f1 "$tmp/dirs" | uniq -d | wc -l)" 0 "each directory and small site in one part"
is "$(awk '$1 ~ /d[01]$/ { print $2 }' "$tmp/dirs" | sort -u | wc -l) $(awk '$1 ~ /d[23]$/ { print $2 }' "$tmp/dirs" | sort -u | wc -l)" \
    "1 1" "d0 with d1, d2 with d3"
is "$(awk '$1 ~ /^s[02]/ { print $2 }' "$tmp/dirs" | sort -u | wc -l) $(awk '$1 ~ /^s[13]/ { print $2 }' "$tmp/dirs" | sort -u | wc -l)" \
    "1 1" "s0 with s2, s1 with s3"

# The generated web (gen-graph -m web: sites of Zipf sizes, directories,
# most links inside the site, the others mostly among related sites):
# its figures, then the target for k = 2 and 4, all from the verifier.
# (With k = 8 and 16 its biggest site, a fifth of the pages, makes even
# METIS cut more links than hashing by host: scripts/bench-partition
# measures those on 2^18 pages.)
gen=$(script_prog gen-graph) || gen=gen-graph-not-built
"$gen" -m web -n 2^14 -s 7 -o "$tmp/web"
set -- $(awk -F '\t' '{ split($1, a, "/"); split($2, b, "/")
    if (a[3] == b[3]) { site++; if (a[4] == b[4]) dir++ } }
    END { printf "%.2f %.2f\n", site / NR, dir / NR }' "$tmp/web")
ok "gen-graph -m web: $1 of the links inside their site (-l 0.9, and some land in their own site)" \
    awk -v f="$1" 'BEGIN { exit !(f >= 0.88 && f <= 0.93) }'
ok "and $2 inside their directory (0.6 of those in the site, less the retries)" \
    awk -v f="$2" 'BEGIN { exit !(f >= 0.45 && f <= 0.56) }'
verify hash "$tmp/web" 2 4 >"$tmp/hash"
ks="2 4"
under_valgrind && ks=2	# the figures are the same; one run checks the memory
for k in $ks; do
	wa-partition -q -n $k -o "$tmp/rules-web" "$tmp/web"
	set -- $(verify eval $k "$tmp/web" "$tmp/rules-web") $(grep "^host $k " "$tmp/hash" | cut -d' ' -f4)
	ok "generated web, k=$k: largest part $1 of the average (<= 1.05), $2 of the links cross (by host: $3)" \
	    awk -v m="$1" -v c="$2" -v h="$3" 'BEGIN { exit !(m <= 1.05 && c < h) }'
done

# --- Tagging -------------------------------------------------------------

web_links=$TESTDATA/web/expected/links.tsv
for k in 2 3 5; do
	wa-partition -q -n $k -o "$tmp/web$k" "$web_links"
	ok "testdata web, k=$k: rules well formed" verify check "$tmp/web$k" $k
	wa-partition -a "$tmp/web$k" "$web_links" >"$tmp/tagged" 2>"$tmp/stderr"
	is "$(wc -l <"$tmp/tagged")" "$(wc -l <"$web_links")" "k=$k: -a writes one row per input row"
	is "$(cut -f1-3 "$tmp/tagged" | cmp - "$web_links" && echo same)" same \
	    "k=$k: the input columns stay as they are"
	verify tag "$tmp/web$k" "$web_links" >"$tmp/want"
	same_file "$tmp/tagged" "$tmp/want" "k=$k: each part equals the verifier's lookup of the rules"
	is "$(awk -F '\t' -v k=$k '$4 !~ /^[0-9]+$/ || $4 >= k' "$tmp/tagged" | wc -l)" 0 \
	    "k=$k: every row has one part, in range"
done

# The figures the tool reports are the verifier's.
wa-partition -n 3 -o "$tmp/r3" "$web_links" 2>"$tmp/stderr"
set -- $(verify eval 3 "$web_links" "$tmp/r3")
like "$(cat "$tmp/stderr")" "largest part $1 of the average, $2 of the links cross parts" \
    "the summary's load and crossing links are the verifier's ($1, $2)"
awk -v m="$1" 'BEGIN { exit !(m <= 1.05) }'
t_result $? "testdata web, k=3: the largest part within 5% of the average ($1)"

gzip -c "$web_links" >"$tmp/links.gz"
wa-partition -q -n 3 "$tmp/links.gz" >"$tmp/out"
same_file "$tmp/out" "$tmp/r3" "gzip input gives the same rules (and -o the same as stdout)"
wa-partition -q -n 3 <"$web_links" >"$tmp/out"
same_file "$tmp/out" "$tmp/r3" "and so does stdin"
sort -r "$web_links" >"$tmp/reversed"
wa-partition -q -n 3 "$tmp/reversed" >"$tmp/out"
same_file "$tmp/out" "$tmp/r3" "rows in another order give the same rules"
cut -f1 "$web_links" >"$tmp/srcs"
wa-partition -q --urls -n 2 "$tmp/srcs" >"$tmp/out"
ok "--urls: a URL list" verify check "$tmp/out" 2

# --- Key ranges ------------------------------------------------------------

# URLs whose SURT keys are close neighbours in byte order (a page beside a
# directory of the same name, '-' '.' '!' '0' '?' after a name, ports,
# subdomains, IP addresses), in a ring; with -d 1000 every token becomes a
# superpage of its own, and a rule starts wherever the part changes.
cat >"$tmp/tricky" <<'EOF'
http://example.com/
http://example.com/a
http://example.com/a-b/x
http://example.com/a.b
http://example.com/a/
http://example.com/a/x
http://example.com/a/x/y?q=1/2
http://example.com/a?q=z/w
http://example.com/a0
http://example.com/a!b
http://example.com:8080/a
http://example.com:8080/a/b
http://www.example.com/
http://www.example.com/x
http://www-2.example.com/
http://www2.example.com/y
http://example.co/
http://example.com-x.org/
http://127.0.0.1/
http://127.0.0.1:8080/a/b
http://127.0.0.10/
http://[::1]/
http://[::1]:8080/a
http://[2001:db8::1]/
http://a.b.c.d.example.com/deep/er/est/page.html
http://a.b.c.d.example.com/deep/er/
http://a.b.c.d.example.com/deep/er
http://example.com/~u/
http://example.com/_/
EOF
awk 'NR == 1 { first = $0 } NR > 1 { print prev "\t" $0 } { prev = $0 }
    END { print prev "\t" first }' "$tmp/tricky" >"$tmp/tricky.links"
for d in 1000 0.5; do
	for k in 3 7; do
		wa-partition -d $d -n $k -o "$tmp/rules" "$tmp/tricky.links" 2>"$tmp/note"
		ok "neighbouring keys, -d $d -n $k: rules well formed" verify check "$tmp/rules" $k
		set -- $(verify eval $k "$tmp/tricky.links" "$tmp/rules")
		like "$(cat "$tmp/note")" "largest part $1 of the average, $2 of the links" \
		    "and the tool's superpages are the rules' ranges ($1, $2)"
	done
done

n5=$(wa-partition -d 5 -n 2 "$web_links" 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) superpages.*/\1/p')
n50=$(wa-partition -d 50 -n 2 "$web_links" 2>&1 >/dev/null | sed -n 's/.* \([0-9]*\) superpages.*/\1/p')
ok "a larger delta makes smaller superpages: $n5 with -d 5, $n50 with -d 50" test "$n5" -lt "$n50"

# --- Weights and rates ----------------------------------------------------

# 12 pages on 12 unlinked hosts; one weighs as much as the 11 others.
awk 'BEGIN { for (i = 0; i < 12; i++) printf "http://s%02d.example/\n", i }' >"$tmp/hosts"
printf 'http://s05.example/\t11\n' >"$tmp/weights"
wa-partition -q --urls -n 2 --weights "$tmp/weights" "$tmp/hosts" >"$tmp/rules-w"
wa-partition -a "$tmp/rules-w" "$tmp/hosts" >"$tmp/tagged"
heavy=$(awk -F '\t' '$1 == "http://s05.example/" { print $2 }' "$tmp/tagged")
is "$(awk -F '\t' -v p="$heavy" '$2 == p' "$tmp/tagged" | wc -l)" 1 \
    "--weights: the page of weight 11 has a part of its own"

# Crawler 0 twice as fast as crawler 1: 8 and 4 of 12 pages.
printf '0\t\t2\n' >"$tmp/rates"
wa-partition -q --urls -n 2 --rates "$tmp/rates" "$tmp/hosts" >"$tmp/rules-r"
wa-partition -a "$tmp/rules-r" "$tmp/hosts" | cut -f2 | sort | uniq -c | awk '{ print $2, $1 }' >"$tmp/out"
printf '0 8\n1 4\n' >"$tmp/want"
same_file "$tmp/out" "$tmp/want" "--rates: the faster crawler gets 8 pages, the other 4"

# --- Re-partitioning (-P) ---------------------------------------------------

wa-partition -q -n 4 -P "$tmp/rules4" "$tmp/rings" >"$tmp/again" 2>"$tmp/stderr"
wa-partition -a "$tmp/rules4" "$tmp/rings" >"$tmp/t1"
wa-partition -a "$tmp/again" "$tmp/rings" >"$tmp/t2"
same_file "$tmp/t2" "$tmp/t1" "-P with balanced rules: every URL keeps its part"
printf 'a\t0\n' >"$tmp/all0"
wa-partition -n 4 -P "$tmp/all0" "$tmp/rings" >"$tmp/again" 2>"$tmp/stderr"
like "$(cat "$tmp/stderr")" "kept their part" "-P says how much kept its part"
set -- $(verify eval 4 "$tmp/rings" "$tmp/again")
is "$1" 1.0000 "-P with everything in part 0: balanced again"
awk 'BEGIN { for (h = 0; h < 8; h++) for (i = 0; i < 10; i++) printf "http://h%d.example/p%02d\n", h, i }' |
    wa-partition -a "$tmp/again" | awk -F '\t' '$2 == 0' | wc -l >"$tmp/n0"
is "$(cat "$tmp/n0")" 20 "and part 0 keeps 20 pages"

# --- Bad input ---------------------------------------------------------

printf 'http://a.example/\thttp://a.example/x\nnot a url\thttp://a.example/\nhttp://a.example/x\thttp://b.example/\n' >"$tmp/bad"
exits 0 "a bad URL is skipped" wa-partition -n 2 -o "$tmp/out" "$tmp/bad"
like "$(cat "$tmp/stderr")" "bad:2: not a canonical URL: not a url" "and reported with file and line"
ok "the rules of the rest are written" verify check "$tmp/out" 2
printf 'com,b)/\t0\ncom,a)/\t1\n' >"$tmp/unsorted"
exits 1 "-a: rules out of order" wa-partition -a "$tmp/unsorted" "$tmp/hosts"
like "$(cat "$tmp/stderr")" "unsorted:2:" "named by file and line"
printf 'com,a)/\tx\n' >"$tmp/badpart"
exits 1 "-a: a bad part" wa-partition -a "$tmp/badpart" "$tmp/hosts"
like "$(cat "$tmp/stderr")" "badpart:1: bad part 'x'" "named by file and line"
: >"$tmp/empty"
exits 1 "-a: an empty rules file" wa-partition -a "$tmp/empty" "$tmp/hosts"
exits 1 "no URLs at all" wa-partition -n 2 "$tmp/empty"
like "$(cat "$tmp/stderr")" "no URLs in the input" "says so"
printf 'http://s00.example/\tmuch\n' >"$tmp/badweight"
exits 1 "--weights: a bad weight" wa-partition --urls -n 2 --weights "$tmp/badweight" "$tmp/hosts"
like "$(cat "$tmp/stderr")" "badweight:1: bad weight 'much'" "named by file and line"
printf '7\t\t1\n' >"$tmp/badrate"
exits 1 "--rates: a part out of range" wa-partition --urls -n 2 --rates "$tmp/badrate" "$tmp/hosts"
like "$(cat "$tmp/stderr")" "badrate:1: bad part '7'" "named by file and line"
wa-partition -n 2 --weights "$tmp/badweight" --urls -o "$tmp/never" "$tmp/hosts" 2>/dev/null
ok "-o: no file when the run fails" test ! -e "$tmp/never"

# The letters of the release before still work this release: the same
# rules, and a warning line for each that names the new spelling.
ok "the old letters -k -u -w -r -p -c -t" wa-partition -q -k 2 -u -w "$tmp/weights" \
	-r "$tmp/rates" -p 2 -c 500 -t 0.1 "$tmp/hosts"
mv "$tmp/stdout" "$tmp/old-letters"
is "$(grep -c ' is now .*; the old spelling goes in the next release$' "$tmp/stderr")" 7 \
    "a warning line for each"
like "$(head -1 "$tmp/stderr")" \
    "^wa-partition: -k is now -n \(--parts\); the old spelling goes in the next release$" \
    "naming the new spelling"
ok "their new spellings" wa-partition -q --parts 2 --urls --weights "$tmp/weights" \
	--rates "$tmp/rates" --algorithm 2 --cross-cost 500 --tolerance 0.1 "$tmp/hosts"
same_file "$tmp/stdout" "$tmp/old-letters" "give the same rules"
is "$(cat "$tmp/stderr")" "" "with no warning"
ok "-P as --previous" wa-partition -q -n 2 --urls --previous "$tmp/old-letters" "$tmp/hosts"

# --- Usage -----------------------------------------------------------------

exits 2 "neither -n nor -a" wa-partition "$tmp/rings"
like "$(cat "$tmp/stderr")" "^wa-partition: " "diagnostics name the tool"
exits 2 "-n 0" wa-partition -n 0 "$tmp/rings"
exits 2 "-a with -n" wa-partition -a "$tmp/rules2" -n 2 "$tmp/rings"
exits 2 "-a with -d" wa-partition -d 5 -a "$tmp/rules2" "$tmp/rings"
exits 2 "--cross-cost with --algorithm 1" wa-partition --algorithm 1 --cross-cost 5 -n 2 "$tmp/rings"
exits 2 "--algorithm 3" wa-partition --algorithm 3 -n 2 "$tmp/rings"
exits 2 "an unknown option" wa-partition -Z -n 2 "$tmp/rings"
exits 0 "-h" wa-partition -h
like "$(head -1 "$tmp/stdout")" "^usage: wa-partition" "prints the usage"
exits 0 "--version" wa-partition --version

done_testing
