#!/bin/sh
# scripts/sim-opic: the experiments of Abiteboul, Preda, Cobena, "Adaptive
# On-Line Page Importance Computation", 2003, with the real wa-opic.  Its
# error measure is checked on hand-computed cases (a scores pair, and the
# power iteration on a three-page graph whose PageRank has a closed form),
# its runs against themselves (same seed, same bytes), and a small run
# against the paper's findings, with margins measured on seeds 1-8.
. "$(dirname "$0")/lib.sh"
# The tools it runs are checked under valgrind by their own tests; here
# valgrind would only slow the simulation down.
under_valgrind && skip_all "the simulation's figures are the same under valgrind"
needs_python numpy
sim=$ROOT/scripts/sim-opic
export WA_BIN

value() {	# FILE EXPERIMENT NAME [RATE]: error_all, error_top10, measures
	awk -F '\t' -v e="$2" -v n="$3" -v r="${4:--}" \
		'$1 == e && $2 == n && $3 == r { print $5, $6, $7 }' "$1"
}

exits 0 "-h" "$sim" -h
help=$(awk '/^  -/ { if (o) print o; o = $0; next } { o = o " " $0 } END { print o }' "$tmp/stdout")
for o in pages rounds per-round batch policies rates change-rounds change-batch jobs seed out; do
	like "$(printf '%s\n' "$help" | grep -e "--$o ")" "default" "-h gives the default of --$o"
done
exits 2 "an unknown strategy is a usage error" "$sim" --strategies greedy,bogus
like "$(cat "$tmp/stderr")" "^sim-opic: unknown strategy 'bogus'" "and names it"
exits 2 "an unknown policy is a usage error" "$sim" --policies W4,k8x
like "$(cat "$tmp/stderr")" "unknown policy 'k8x'" "and names it"
exits 2 "a rate above 1 is a usage error" "$sim" --rates 0.01,2
exits 2 "a non-numeric --pages is a usage error" "$sim" --pages many
exits 2 "--pages 5 is a usage error" "$sim" --pages 5
exits 2 "an unknown experiment is a usage error" "$sim" --experiments convergence,fig7
exits 2 "an unknown option is a usage error" "$sim" --frobnicate
mkdir "$tmp/nobin"
exits 2 "missing tools are a usage error" "$sim" -q --bin "$tmp/nobin" --out "$tmp/x"
like "$(cat "$tmp/stderr")" "nobin/wa-opic not found" "that names the tool"
exits 1 "a missing --links file is a runtime error" "$sim" -q --links "$tmp/none.tsv" --out "$tmp/x"
printf 'http://a.test/\thttp://b.test/\nhttp://a.test/\n' >"$tmp/short.tsv"
exits 1 "a line without a tab is an error" "$sim" -q --links "$tmp/short.tsv" --out "$tmp/x"
like "$(cat "$tmp/stderr")" "short.tsv:2:" "naming file and line"

# The error by hand: page a (the top 10% of ten pages) is 25% off, page b
# 25% off, the eight others exact: 5% on all pages, 25% on the top.
printf 'http://t/a\t0.28\n' >"$tmp/fix.tsv"
printf 'http://t/a\t0.21\nhttp://t/b\t0.10\n' >"$tmp/est.tsv"
for p in b c d e f g h i j; do printf 'http://t/%s\t0.08\n' $p >>"$tmp/fix.tsv"; done
for p in c d e f g h i j; do printf 'http://t/%s\t0.08\n' $p >>"$tmp/est.tsv"; done
ok "--compare" "$sim" --compare "$tmp/est.tsv" "$tmp/fix.tsv"
is "$(cat "$tmp/stdout")" "error_all	5.000000
error_top10	25.000000" "--compare: 5% on all pages, 25% on the top page"
head -n 9 "$tmp/est.tsv" >"$tmp/est9.tsv"
exits 1 "--compare: a page without an estimate is an error" "$sim" --compare "$tmp/est9.tsv" "$tmp/fix.tsv"

# Three pages, a <-> b, c -> a: PageRank a = 18/37, b = 17.15/37, c = 0.05.
# The power iteration starts uniform (errors 17/54, 1 - 37/51.45, 17/3:
# mean 208.7446%, top page a 31.4815%), then a = 0.05 + 0.85 * 2/3 (a off by
# 26.7593%), b and c as before (mean 18.2816%).
printf 'http://t/a\thttp://t/b\nhttp://t/b\thttp://t/a\nhttp://t/c\thttp://t/a\n' >"$tmp/abc.tsv"
ok "the power iteration on three pages" "$sim" -q --links "$tmp/abc.tsv" \
	--experiments convergence --strategies offline --rounds 1 --out "$tmp/abc"
is "$(cut -f 1,3,4 "$tmp/abc/convergence-offline.tsv")" "# reads	error_all	error_top10
0	208.744556	31.481481
3	18.281593	26.759259" "its errors, as computed by hand"
like "$(value "$tmp/abc/summary.tsv" fixpoint wa-pagerank)" "^[0-9.e-]+ [0-9.e-]+ -$" \
	"the summary has the fixpoint's check against wa-pagerank"
awk '{ exit !($1 < 1e-6 && $2 < 1e-6) }' <<EOF
$(value "$tmp/abc/summary.tsv" fixpoint wa-pagerank)
EOF
t_result $? "wa-pagerank agrees with the numpy fixpoint"

# Same seed, same bytes; another seed, another graph.
# With the Fixed Window of N reads, the window holds N reads: 1 measure a
# page on average once the window is full.
fixed=
"$WA_BIN/wa-opic" -h 2>&1 | grep -q -e '-F T' && fixed=,F1
small="-q --pages 1000 --rounds 2 --change-rounds 2 --rates 0.05 --policies W2,k4$fixed"
ok "a small run" "$sim" $small --seed 5 --out "$tmp/a"
ok "the same run again" "$sim" $small --seed 5 -j 1 --out "$tmp/b"
for f in summary.tsv convergence-greedy.tsv convergence-cycle.tsv convergence-random.tsv \
	convergence-offline.tsv changing-W2-r0.05.tsv changing-k4-r0.05.tsv; do
	same_file "$tmp/a/$f" "$tmp/b/$f" "same seed, same $f"
done
ok "another seed" "$sim" $small --seed 6 --experiments convergence --strategies offline --out "$tmp/c"
if cmp -s "$tmp/a/convergence-offline.tsv" "$tmp/c/convergence-offline.tsv"; then
	t_result 1 "another seed, another graph"
else
	t_result 0 "another seed, another graph"
fi
is "$(ls "$tmp/a" | grep -c tmp)" 0 "no temporary file is left"
if [ -n "$fixed" ]; then
	is "$(tail -n 2 "$tmp/a/changing-F1-r0.05.tsv" | cut -f 2,5)" "1.5000	1.0000
2.0000	1.0000" "Fixed Window of N reads: 1 measure a page"
fi

# The quick run against the paper's findings.  Ratios measured on seeds 1-8
# (3000 pages, 4 N reads): on all pages greedy / random 0.27-0.38, cycle /
# random 0.55-0.65; on the top 10% greedy / cycle 0.29-0.49, greedy / random
# 0.17-0.27, greedy / power iteration 0.26-0.88 (0.69 with seed 3).
ok "a --quick run" "$sim" --quick -q --seed 3 --out "$tmp/q"
s=$tmp/q/summary.tsv
set -- $(value "$s" convergence greedy) $(value "$s" convergence cycle) \
	$(value "$s" convergence random) $(value "$s" convergence offline)
echo "# greedy $1 $2, cycle $4 $5, random $7 $8, offline ${10} ${11}"
awk -v g="$1" -v c="$4" -v r="$7" 'BEGIN { exit !(g < 0.5 * r && c < 0.8 * r) }'
t_result $? "Fig. 2: Greedy and Cycle below Random on all pages"
awk -v g="$2" -v c="$5" -v r="$8" -v o="${11}" \
	'BEGIN { exit !(g < 0.6 * c && g < 0.4 * r && g < 0.9 * o) }'
t_result $? "Fig. 3: Greedy best on the top 10% pages"
for st in greedy cycle random offline; do
	awk -F '\t' 'NR > 1 && $1 % 3000 == 0 { if (NR > 2 && !($3 < prev)) exit 1; prev = $3; k++ }
		END { exit !(k == 5) }' "$tmp/q/convergence-$st.tsv"
	t_result $? "$st: the error falls every N reads"
done
is "$(wc -l <"$tmp/q/convergence-greedy.tsv")" 18 "a checkpoint every N/4 reads, 0 included"
# Windows follow a changing graph: at 10% of the pages changed per N reads
# the Variable Window (8) is below plain OPIC (seeds 1-8: 0.68-0.94 of it,
# 0.82 with seed 3); every policy's error grows with the rate of change.
# (Interpolation is 1.2-1.6 times Variable Window 8's error here, not at
# least as good as the paper finds: 6 N reads are too few for it to forget
# the initial state; with 10 N reads, 0.80-1.14 times: see
# scripts/sim-opic.results.)
set -- $(value "$s" changing k8 0.1) $(value "$s" changing plain 0.1)
echo "# rate 0.1: k8 $1 ($3 measures), plain $4"
awk -v k="$1" -v p="$4" 'BEGIN { exit !(k < 0.9 * p) }'
t_result $? "Fig. 4: a window follows the changes better than plain OPIC"
for pol in plain W4 k8; do
	awk -v a="$(value "$s" changing $pol 0.01 | cut -d ' ' -f 1)" \
		-v b="$(value "$s" changing $pol 0.1 | cut -d ' ' -f 1)" 'BEGIN { exit !(a < b) }'
	t_result $? "$pol: more changes, more error"
done
is "$(value "$s" changing W4 0.1 | cut -d ' ' -f 3)" 1.000 "Interpolation keeps one measure"
# Fig. 4 and 6 with 10 N reads on the changing graph, as in the paper: at
# 1% Interpolation's error on all pages is 0.82-1.09 times Variable Window
# 8's (seeds 1-8); it was 1.62-1.97 times when wa-opic -W did not divide
# history plus cash by the time they cover.
ok "10 N reads on the changing graph" "$sim" -q --pages 3000 --rounds 4 --experiments changing \
	--policies W4,k8 --rates 0.01 --change-rounds 10 --seed 1 --out "$tmp/w"
set -- $(value "$tmp/w/summary.tsv" changing W4 0.01) $(value "$tmp/w/summary.tsv" changing k8 0.01)
echo "# rate 0.01, 10 N reads: W4 $1, k8 $4"
awk -v w="$1" -v k="$4" 'BEGIN { exit !(w < 1.3 * k) }'
t_result $? "Fig. 4, 6: Interpolation, storing one measure, about as good as Variable Window 8"
awk -v m="$(value "$s" changing k8 0.1 | cut -d ' ' -f 3)" 'BEGIN { exit !(m > 2 && m <= 8) }'
t_result $? "Variable Window 8 keeps at most 8 measures a page"
is "$(awk -F '\t' 'NR > 1 { n++ } END { print n }' "$tmp/q/changing-k8-r0.1.tsv")" 13 \
	"a checkpoint every N/2 reads"

done_testing
