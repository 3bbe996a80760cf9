#!/bin/sh
# scripts/sim-refresh: the simulated web.  Its figures are checked against
# closed forms of Preda, "Data Acquisition for an XML Warehouse", 2000,
# ch. 3 (the optimum S^(a+1)/((a+1)G^a), the cost and the freshness of a
# uniform refresh), the oracle run through wa-schedule against the
# simulator's own python optimum, and the streams it hands to wa-lambda
# against man/wa-formats.5.
. "$(dirname "$0")/lib.sh"
# The tools it runs are checked under valgrind by their own tests; here
# valgrind would only slow the simulation down.
under_valgrind && skip_all "the simulation's figures are the same under valgrind"

needs_python numpy
sim=$ROOT/scripts/sim-refresh
tab=$(printf '\t')

value() {	# FILE KEY
	awk -F '\t' -v k="$2" '$1 == k { print $2 }' "$1"
}

near() {	# GOT WANT RELTOL MSG: |GOT/WANT - 1| <= RELTOL
	if awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN {
		if (g == "" || w == "" || w == 0) exit 1
		d = g / w - 1; if (d < 0) d = -d; exit !(d <= t) }'; then
		t_result 0 "$4"
	else
		t_result 1 "$4"
		printf '#   got:      %s\n#   expected: %s within %s relative\n' "$1" "$2" "$3" >&2
	fi
}

exits 0 "-h" "$sim" -h
help=$(awk '/^  -/ { if (o) print o; o = $0; next } { o = o " " $0 } END { print o }' "$tmp/stdout")
for o in pages cycles settle cycle bandwidth alpha pareto lastmod warmup start policies seed bin out; do
	like "$(printf '%s\n' "$help" | grep -e "--$o ")" "default" "-h gives the default of --$o"
done
exits 2 "an unknown policy is a usage error" "$sim" --policies uniform,lru
like "$(cat "$tmp/stderr")" "unknown policy 'lru'" "and names it"
exits 2 "--settle not below --cycles is a usage error" "$sim" --cycles 4 --settle 4
mkdir "$tmp/nobin"
exits 2 "missing tools are a usage error" "$sim" --quick --bin "$tmp/nobin" --out "$tmp/x"
like "$(cat "$tmp/stderr")" "nobin/wa-(lambda|schedule) not found" "that names the tool"

# The quick run: every policy, the real tools.
exits 0 "a --quick run of the six policies" \
	"$sim" --quick -q --bin "$WA_BIN" --out "$tmp/q"
cp "$tmp/stdout" "$tmp/report"
sum=$tmp/q/summary.tsv
report=$(cat "$tmp/report")
for line in "oracle / analytic optimum +[0-9.]+ +target within 0.98-1.02" \
	"wa / oracle +[0-9.]+ +target at most 1.15" \
	"wa / uniform +[0-9.]+ +target at most 0.50" \
	"wa / nutch +[0-9.]+ +target below 1"; do
	like "$report" "$line" "the report prints: ${line%% +*}, next to its target"
done
# The oracle is wa-schedule given the true rates; the reference is the
# simulator's python water-filling on the same rates: the same frequencies,
# hence the same fetches but in the cycles where more than G T pages are due,
# when wa-schedule defers by its priority and the reference the pages due
# last (seeds 1 to 12: at most 0.8% apart).
near "$(value "$sum" cost_oracle)" "$(value "$sum" cost_reference)" 0.02 \
	"wa-schedule on the true rates costs what the python optimum costs"
# The web starts in the optimal crawler's steady state, so the oracle's cost
# is stationary; its mean over the last 12 cycles of 1500 pages scatters
# around S^(a+1)/((a+1)G^a) with a standard deviation of 0.005 (seeds 1 to
# 12 of this configuration: 0.998 to 1.012); 0.04 is eight of them.
near "$(value "$sum" cost_oracle)" "$(value "$sum" analytic_optimum)" 0.04 \
	"the oracle's simulated cost is the analytic optimum"
is "$(value "$sum" capped)" 0 "the default bandwidth leaves every page under the cap 1/T"
g=$(value "$sum" bandwidth)
for p in wa oracle uniform nutch proportional reference; do
	is "$(value "$sum" "spent_$p")" "$g" "$p spends the bandwidth G = $g pages/day"
done
is "$(wc -l <"$tmp/q/cycles.tsv" | tr -d ' ')" 24 "cycles.tsv has a row per cycle"
if command -v gnuplot >/dev/null; then
	like "$(head -c 4 "$tmp/q/sim-refresh.png" | od -An -c | tr -d ' ')" "PNG" "the plot is a PNG"
	like "$report" "plot: .*/sim-refresh.png" "and its path is printed"
fi

# The history wa-lambda was given: the stream of wa-formats(5).
h=$tmp/q/work/wa/history.tsv
ok "the history is sorted by url, then time" \
	env LC_ALL=C sort -c -t "$tab" -k1,1 -k2,2n "$h"
is "$(awk -F '\t' 'NF != 4 || $2 !~ /^[0-9]+$/ || $3 !~ /^[01-]$/ ||
	$4 !~ /^([0-9]+|-)$/' "$h" | head -3)" "" "every row is url, time, changed 1/0/-, last-modified"
is "$(awk -F '\t' '($1 != u) != ($3 == "-") { print; exit } { u = $1 }' "$h")" "" \
	"changed is - exactly on a page's first fetch"
is "$(awk -F '\t' '$4 != "-" && $4 > $2 { print; exit }' "$h")" "" \
	"no Last-Modified is later than its fetch"
is "$(cut -f1 "$h" | sort -u | wc -l | tr -d ' ')" 1500 "every page is in it"
is "$(wc -l <"$tmp/q/work/wa/lambda.tsv" | tr -d ' ')" 1500 "wa-lambda gave every page a rate"
for p in wa oracle; do
	is "$(wc -l <"$tmp/q/work/$p/plan.tsv" | tr -d ' ')" 1500 "wa-schedule planned every page for $p"
done
is "$(awk -F '\t' '$4 != 0' "$tmp/q/work/oracle/plan.tsv" | head -1)" "" \
	"on the true rates it capped none, as the simulator's optimum says"

# From the uniform start the uniform policy is stationary: over 120 cycles
# (several of its periods) its cost and freshness are the closed forms
# w (lambda/f)^a/(a+1) and (1-exp(-lambda/f))/(lambda/f) summed over pages.
# Seeds 1 to 10 gave ratios within 0.2% (cost) and 1% (freshness).
exits 0 "a run of the uniform policy from the uniform start" \
	"$sim" -q --pages 3000 --cycles 120 --settle 0 --warmup 30d --pareto 2 \
	--start uniform --policies uniform --out "$tmp/u"
near "$(value "$tmp/u/summary.tsv" cost_uniform)" \
	"$(value "$tmp/u/summary.tsv" uniform_cost_expected)" 0.01 \
	"the simulated uniform cost is its closed form"
near "$(value "$tmp/u/summary.tsv" freshness_uniform)" \
	"$(value "$tmp/u/summary.tsv" uniform_freshness_expected)" 0.025 \
	"the simulated weighted freshness is its closed form"

done_testing
