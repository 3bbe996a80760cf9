#!/bin/sh
# wa-lambda: every estimator recomputed independently (t/lambda-verify.py,
# scipy) on generated histories to 1e-9 relative: the last date of change
# (corrected and literal), the maximum likelihood of Preda, "Data
# Acquisition for an XML Warehouse", 2000, eq. 4.1, on irregular intervals,
# the prior on the edge cases, the fitted prior and the intervals; a worked
# example by hand; overrides; unsorted input and bad rows; and estimates
# close to the truth on simulated Poisson pages.
. "$(dirname "$0")/lib.sh"

needs_python numpy scipy
verify() { $PY "$T_DIR/lambda-verify.py" "$@"; }
vcheck() {	# MSG ARGS...
	msg=$1; shift
	if verify "$@" >"$tmp/vout" 2>&1; then t_result 0 "$msg"; else
		t_result 1 "$msg"; sed 's/^/#   /' "$tmp/vout" | head -5
	fi
	sed 's/^/# /' "$tmp/vout" | head -1
}

# --- generated histories: every row recomputed ---------------------------
for seed in 1 2; do
	h=$tmp/gen$seed.tsv
	verify gen $seed 400 "$h"
	ok "seed $seed: --prior 0.7,3" wa-lambda -q --prior 0.7,3 -o "$tmp/g.out" "$h"
	vcheck "seed $seed: every row as recomputed, prior 0.7,3" check "$h" "$tmp/g.out" --prior 0.7,3
	ok "seed $seed: the prior fitted on the file" wa-lambda -o "$tmp/g.out" "$h"
	like "$(cat "$tmp/stderr")" "prior fitted on [0-9]+ URLs" "seed $seed: the fitted prior is told"
	vcheck "seed $seed: every row as recomputed, fitted prior" check "$h" "$tmp/g.out"
	ok "seed $seed: --literal" wa-lambda -q --literal --prior 2,5 -o "$tmp/g.out" "$h"
	vcheck "seed $seed: eq. 4.2 literally, as recomputed" check "$h" "$tmp/g.out" --prior 2,5 --literal
done
h=$tmp/gen1.tsv
wa-lambda -q --prior 1,7 "$h" >"$tmp/want"
for est in lastmod ml; do
	like "$(cut -f3 "$tmp/want" | sort -u | tr '\n' ' ')" "$est" "the generated histories use $est"
done
for flag in none-changed all-changed single; do
	like "$(cut -f8 "$tmp/want" | tr ',' '\n' | sort -u | tr '\n' ' ')" "$flag" \
	    "the generated histories have $flag rows"
done
is "$(awk -F '\t' '!($2 > 0 && $6 > 0 && $7 >= $6 && $2 < 1e300 && $7 < 1e300)' "$tmp/want")" "" \
    "lambda and interval positive and finite on every row"
wa-lambda -q <"$h" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "stdin: the default prior 1,7"
gzip -c "$h" >"$tmp/h.gz"
wa-lambda -q --prior 1,7 "$tmp/h.gz" >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "gzip history"
split -l 1000 "$h" "$tmp/part."
wa-lambda -q --prior 1,7 "$tmp"/part.* >"$tmp/out" 2>"$tmp/stderr"
same_file "$tmp/out" "$tmp/want" "a history cut in files read as one stream"

# --- a page with more distinct intervals than kept exactly ----------------
verify long 3 150000 "$tmp/long.tsv"
ok "150000 observations of one page" wa-lambda -q --prior 1,7 -o "$tmp/long.out" "$tmp/long.tsv"
vcheck "their lengths merged, still as recomputed to 1e-9" check "$tmp/long.tsv" "$tmp/long.out" --prior 1,7

# --- the worked example of wa-lambda(1), by hand --------------------------
# Four visits a day apart; the page changed once, 6 hours before the third.
# Corrected: n = 3, X = 1, T = 1 + 0.25 + 1 days = 2.25,
#   lambda = (0 - 1 / (3 ln(2/3))) / 2.25 = 0.365396...
# Literal eq. 4.2: the first visit counts (age 1 day) and the change (0.25):
#   C / sum l = 2 / 1.25 = 1.6.
cat >"$tmp/ex.tsv" <<'EOF'
http://example.com/	1700000000	-	1699913600
http://example.com/	1700086400	0	1699913600
http://example.com/	1700172800	1	1700151200
http://example.com/	1700259200	0	1700151200
EOF
want=$(awk 'BEGIN { printf "%.12g", (0 - 1 / (3 * log(2 / 3))) / 2.25 }')
ok "the worked example" wa-lambda -q --prior 1,7 "$tmp/ex.tsv"
is "$(cut -f2-5 "$tmp/stdout")" "$want	lastmod	4	1" "corrected: ((X-1) - X/(n ln(1-X/n)))/T"
ok "the worked example, --literal" wa-lambda -q --literal --prior 1,7 "$tmp/ex.tsv"
is "$(cut -f2-5 "$tmp/stdout")" "1.6	lastmod-literal	4	2" "literal: C / sum of l_i"
# Existence of change only: intervals 1 and 2 days unchanged, 0.5 changed:
# x solves 0.5 / (e^(0.5 x) - 1) = 3, x = 2 ln(7/6).
printf 'http://example.com/\t%s\t%s\t-\n' 0 - 86400 0 259200 0 302400 1 >"$tmp/ml.tsv"
ok "existence of change" wa-lambda -q --prior 1,7 "$tmp/ml.tsv"
is "$(cut -f2-5 "$tmp/stdout")" "$(awk 'BEGIN { printf "%.12g", 2 * log(7 / 6) }')	ml	4	1" \
    "eq. 4.1: the root of d/dx log f, by hand"

# --- edge cases ------------------------------------------------------------
printf 'http://a/\t0\t-\t-\nhttp://b/\t0\t-\t-\nhttp://b/\t86400\t0\t-\nhttp://c/\t0\t-\t-\nhttp://c/\t43200\t1\t-\n' >"$tmp/edge.tsv"
ok "edge cases" wa-lambda -q --prior 2,4 "$tmp/edge.tsv"
is "$(cut -f1,2,3,8 "$tmp/stdout" | head -2)" "http://a/	0.5	prior	single
http://b/	0.4	prior	none-changed" "one observation: the prior mean a/b; none changed: a/(b+V)"
like "$(sed -n 3p "$tmp/stdout" | cut -f3,8)" "^prior	all-changed$" "every interval changed: the prior's mode, flagged"

# --- overrides ---------------------------------------------------------------
printf 'http://0/\t2\nhttp://b/\t0.25\nhttp://bb/\t3\nhttp://z/\t1e-3\n' >"$tmp/ov.tsv"
ok "-O overrides" wa-lambda -q --prior 2,4 -O "$tmp/ov.tsv" -o "$tmp/ov.out" "$tmp/edge.tsv"
vcheck "overrides replace the estimate, or add a row" check "$tmp/edge.tsv" "$tmp/ov.out" \
    --prior 2,4 --overrides "$tmp/ov.tsv"
is "$(grep '^http://b/' "$tmp/ov.out")" "http://b/	0.25	override	2	0	0.25	0.25	none-changed" \
    "an override keeps n, changes and flags of the history"
printf 'http://b/\t0\nhttp://c/\tfast\nhttp://z/\t1\n' >"$tmp/ov-bad.tsv"
exits 0 "bad override rows beside a good one" wa-lambda -q --prior 2,4 -O "$tmp/ov-bad.tsv" "$tmp/edge.tsv"
like "$(cat "$tmp/stderr")" "ov-bad.tsv:1: .*positive" "a zero rate is refused with FILE:LINE"
like "$(cat "$tmp/stderr")" "ov-bad.tsv:2: " "and a word"
is "$(grep -c "^http://[bc]/.*override" "$tmp/stdout")" 0 "and neither replaces an estimate"
printf 'http://c/\t1\nhttp://b/\t1\n' >"$tmp/ov-unsorted.tsv"
exits 1 "unsorted overrides" wa-lambda -q -O "$tmp/ov-unsorted.tsv" "$tmp/edge.tsv"
like "$(cat "$tmp/stderr")" "ov-unsorted.tsv:2:" "refused with FILE:LINE"

# --- unsorted input, bad rows ------------------------------------------------
printf 'http://b/\t0\t-\t-\nhttp://a/\t5\t1\t-\n' >"$tmp/unsorted-url.tsv"
exits 1 "URLs out of order" wa-lambda -q --prior 1,7 "$tmp/unsorted-url.tsv"
like "$(cat "$tmp/stderr")" "unsorted-url.tsv:2: not sorted by URL" "refused with FILE:LINE"
printf 'http://a/\t9\t-\t-\nhttp://a/\t5\t1\t-\n' >"$tmp/unsorted-time.tsv"
exits 1 "times out of order" wa-lambda -q "$tmp/unsorted-time.tsv"
like "$(cat "$tmp/stderr")" "unsorted-time.tsv:2: not sorted by time" "refused with FILE:LINE"
printf 'http://0/\t1\t-\t-\n' >"$tmp/after.tsv"
exits 1 "a second file that goes back" wa-lambda -q --prior 1,7 "$tmp/edge.tsv" "$tmp/after.tsv"
like "$(cat "$tmp/stderr")" "after.tsv:1: not sorted by URL" "refused at its first line"
cat >"$tmp/bad.tsv" <<'EOF'
http://a/	0	-	-
http://a/	yesterday	1	-
http://a/	100	maybe	-
http://a/	100	1	Tuesday
http://a/	86400	1	-
http://a/	86400	0	-
http://a/	172800	0	-
short	row
EOF
exits 0 "bad rows are skipped" wa-lambda -q --prior 1,7 "$tmp/bad.tsv"
for l in 2:.*time 3:.*changed 4:.*last-modified 6:.*same\ time 8: ; do
	like "$(cat "$tmp/stderr")" "bad.tsv:$l" "bad row reported: bad.tsv:$l"
done
like "$(cat "$tmp/stderr")" "5 lines rejected" "and counted"
is "$(cut -f1,3-5 "$tmp/stdout")" "http://a/	ml	3	1" "the good rows still give the estimate"

exits 2 "--prior without a rate" wa-lambda --prior 3 "$tmp/edge.tsv"
exits 2 "--prior with a zero rate" wa-lambda --prior 1,0 "$tmp/edge.tsv"
exits 1 "a missing file" wa-lambda -q --prior 1,7 "$tmp/nonexistent"

# --- estimates close to the truth ------------------------------------------
# 400 pages, rates log-uniform in [0.05, 5]/day, 300 irregular visits each.
# Per page the relative error is at most about 1/sqrt(changes) <= 0.26
# (the "rare" set sees ~15 changes), so the median ratio over 400 pages has
# a standard deviation below 1.25 * 0.26 / 20 = 0.016: [0.95, 1.05] leaves
# three of them, and an estimator biased by 5% or more fails.  The 90%
# intervals must cover the truth for 84-96% of the pages (binomial sd 1.5%).
for kind in ml lastmod rare; do
	verify simulate 7 400 $kind "$tmp/sim.tsv" "$tmp/truth.tsv"
	est=$([ $kind = ml ] && echo ml || echo lastmod)
	ok "simulated $kind pages" wa-lambda -q --prior 1,7 -o "$tmp/sim.out" "$tmp/sim.tsv"
	vcheck "$kind: median lambda/truth within 5%, intervals cover ~90%" \
	    consistency "$tmp/truth.tsv" "$tmp/sim.out" $est 0.95 1.05
	if [ $kind = ml ]; then
		# Rates log-uniform on [0.05, 5]: mean 1.075, variance 1.557, so
		# the Gamma with these moments has shape 0.742.
		ok "ml: the prior fitted on the simulated pages" wa-lambda -o "$tmp/sim.fit" "$tmp/sim.tsv"
		vcheck "ml: every row as recomputed with the fitted prior" check "$tmp/sim.tsv" "$tmp/sim.fit"
		like "$(cat "$tmp/stderr")" "shape 0\.[5-9]" "ml: the fitted shape is near 0.742"
	fi
	if [ $kind = rare ]; then
		# Visits 20 times faster than changes: eq. 4.2 as printed ignores
		# the unchanged intervals and overestimates many times over.
		wa-lambda -q --literal --prior 1,7 -o "$tmp/sim.lit" "$tmp/sim.tsv"
		vcheck "rare: eq. 4.2 literally overestimates more than 5 times" \
		    consistency "$tmp/truth.tsv" "$tmp/sim.lit" lastmod-literal 5 1000
	fi
done

done_testing
