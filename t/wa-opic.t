#!/bin/sh
# wa-opic: OPIC (seed 004) checked against an independent dense simulation
# (t/opic-verify.py, numpy) that also checks total cash 1 and the Lemma 2.3
# identity at every read; a worked example by hand, plain and windowed;
# convergence to wa-pagerank's vector; state round trip and corruption;
# bad input; the greedy list; focus keeps the total cash.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
$PY -c 'import numpy' 2>/dev/null || skip_all "needs python3-numpy (scripts/deps)"
verify() { $PY "$T_DIR/opic-verify.py" "$@"; }
vcheck() {	# MSG ARGS...
	msg=$1; shift
	if verify "$@" >"$tmp/vout" 2>&1; then t_result 0 "$msg"; else
		t_result 1 "$msg"; sed 's/^/#   /' "$tmp/vout" | head -5
	fi
}

: >"$tmp/empty"

# --- by hand: A <-> B read 3 times each, c = 1 ------------------------------
# Empty state: the virtual page holds cash 1.  Read A: cash 0, history 0;
# the virtual page spreads 1/2 to A and B.  Read B: H_B = .5, A gets .5
# (A: 1).  Read A: H_A = 1, B: 1.  Read B: H_B = 1.5, A: 1.  Read A: H_A = 2,
# B: 1.  Read B: H_B = 2.5, A: 1.  Importance (H+C)/sum: A 3/5.5, B 2.5/5.5.
printf 'A\tB\nB\tA\nA\tB\nB\tA\nA\tB\nB\tA\n' >"$tmp/ab.tsv"
ok "plain OPIC on A <-> B" wa-opic -q -c 1 -s "$tmp/ab.st" "$tmp/ab.tsv"
same_file "$tmp/stdout" - "importance as computed by hand" <<'X'
A	0.54545454545454541
B	0.45454545454545453
X
ok "--next 1 on the same state, no links" wa-opic -q -s "$tmp/ab.st" --next 1 "$tmp/empty"
same_file "$tmp/stdout" - "the greedy list: A holds all the cash" <<'X'
A	1
X
# Interpolation, T = 4 reads: each page is read every 2 reads, so
# H' = H/2 + cash: A 0, 1, 1.5; B .5, 1.25, 1.625; A also holds cash 1.
ok "Interpolation window of 4 reads" wa-opic -q -c 1 -W 4 -s "$tmp/abw.st" "$tmp/ab.tsv"
same_file "$tmp/stdout" - "windowed importance as computed by hand: 2.5/4.125, 1.625/4.125" <<'X'
A	0.60606060606060608
B	0.39393939393939392
X
# Variable Window of 2 measures: A keeps cashes 1, 1 (reads 2, 4) since
# read 0, plus cash 1: 3/6; B keeps 1, 1 (reads 3, 5) since read 1: 2/5.
ok "Variable Window of 2 measures" wa-opic -q -c 1 -k 2 -s "$tmp/abk.st" "$tmp/ab.tsv"
same_file "$tmp/stdout" - "importance as computed by hand: .5/.9, .4/.9" <<'X'
A	0.55555555555555558
B	0.44444444444444448
X
exits 2 "-W and -k together are a usage error" wa-opic -q -W 4 -k 2 -s "$tmp/wk.st" "$tmp/ab.tsv"
exits 2 "another -W on an existing state is a usage error" \
	wa-opic -q -W 8 -s "$tmp/abw.st" "$tmp/ab.tsv"
like "$(cat "$tmp/stderr")" "abw.st was made with -c 1 -W 4 -k 0" "and says what the state was made with"

# --- generated crawl order: every cash and history recomputed --------------
verify gen 1 300 4 >"$tmp/gen.tsv"
ok "plain OPIC on a 300-page crawl stream (sources read again later)" \
	wa-opic -q -s "$tmp/g.st" "$tmp/gen.tsv"
cp "$tmp/stdout" "$tmp/g.out"
vcheck "state and output as simulated; total cash 1 and Lemma 2.3 at every read" \
	sim "$tmp/g.st" "$tmp/g.out" "$tmp/gen.tsv"
ok "Interpolation window of 200 reads" wa-opic -q -W 200 -s "$tmp/gw.st" "$tmp/gen.tsv"
cp "$tmp/stdout" "$tmp/gw.out"
vcheck "windowed state and output as simulated; total cash 1" \
	sim -W 200 "$tmp/gw.st" "$tmp/gw.out" "$tmp/gen.tsv"

ok "Variable Window of 8 measures" wa-opic -q -k 8 -s "$tmp/gk.st" "$tmp/gen.tsv"
cp "$tmp/stdout" "$tmp/gk.out"
vcheck "Variable Window state and output as simulated; total cash 1" \
	sim -k 8 "$tmp/gk.st" "$tmp/gk.out" "$tmp/gen.tsv"

# --- state round trip: two halves equal the whole ---------------------------
n=$(wc -l <"$tmp/gen.tsv")
head -n $((n / 2)) "$tmp/gen.tsv" >"$tmp/h1.tsv"
tail -n +$((n / 2 + 1)) "$tmp/gen.tsv" >"$tmp/h2.tsv"
# A source cut in two by the split is read twice; cut at a source change.
while [ "$(tail -n 1 "$tmp/h1.tsv" | cut -f1)" = "$(head -n 1 "$tmp/h2.tsv" | cut -f1)" ]; do
	head -n 1 "$tmp/h2.tsv" >>"$tmp/h1.tsv"
	tail -n +2 "$tmp/h2.tsv" >"$tmp/h2b.tsv" && mv "$tmp/h2b.tsv" "$tmp/h2.tsv"
done
ok "first half" wa-opic -q -s "$tmp/half.st" "$tmp/h1.tsv"
ok "second half from stdin" sh -c 'wa-opic -q -s "$1" <"$2"' - "$tmp/half.st" "$tmp/h2.tsv"
cp "$tmp/stdout" "$tmp/half.out"
vcheck "two runs on the halves give the output of one run" l1 "$tmp/half.out" "$tmp/g.out" 1e-12
vcheck "and the same state" samestate "$tmp/half.st" "$tmp/g.st"
ok "first half, Variable Window" wa-opic -q -k 8 -s "$tmp/halfk.st" "$tmp/h1.tsv"
ok "second half" wa-opic -q -s "$tmp/halfk.st" "$tmp/h2.tsv"
cp "$tmp/stdout" "$tmp/halfk.out"
vcheck "the same output as one run" l1 "$tmp/halfk.out" "$tmp/gk.out" 1e-12
vcheck "and the same state" samestate "$tmp/halfk.st" "$tmp/gk.st"

# --- corruption --------------------------------------------------------------
cp "$tmp/g.st" "$tmp/bad.st"
printf '\377' | dd of="$tmp/bad.st" bs=1 seek=200 conv=notrunc 2>"$tmp/dd.err"
exits 1 "a flipped payload byte is refused" wa-opic -q -s "$tmp/bad.st" "$tmp/empty"
like "$(cat "$tmp/stderr")" "^wa-opic: .*bad.st: .*checksum" "naming the file and the checksum"
head -c 100 "$tmp/g.st" >"$tmp/short.st"
exits 1 "a truncated state is refused" wa-opic -q -s "$tmp/short.st" "$tmp/empty"
like "$(cat "$tmp/stderr")" "short.st" "naming the file"
printf 'x\ty\n' >"$tmp/notstate"
exits 1 "a file that is no state is refused" wa-opic -q -s "$tmp/notstate" "$tmp/empty"

# --- bad input ---------------------------------------------------------------
printf 'http://a/\thttp://b/\nhttp://a/\n' >"$tmp/onecol.tsv"
exits 1 "a row with one column is an error" wa-opic -q -s "$tmp/e.st" "$tmp/onecol.tsv"
like "$(cat "$tmp/stderr")" "onecol.tsv:2:" "naming file and line"
[ ! -e "$tmp/e.st" ]; t_result $? "and no state is written"
exits 2 "-s is required" wa-opic -q "$tmp/ab.tsv"
exits 2 "-x needs -f" wa-opic -q -s "$tmp/x.st" -x 0.3 "$tmp/ab.tsv"

# --- convergence to wa-pagerank on a static strongly connected graph ---------
# A ring through 80 pages plus random links, read 300 times in the same
# order: the history grows linearly while the initial transients stay
# bounded, so the error falls as 1/rounds (0.35% at 300 rounds).
$PY - "$tmp/sc.tsv" <<'X'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    for i in range(80):
        for d in sorted({(i + 1) % 80} | {r.randrange(80) for _ in range(r.randrange(4))}):
            f.write(f"http://s/{i:02}\thttp://s/{d:02}\n")
X
for k in $(seq 300); do cat "$tmp/sc.tsv"; done >"$tmp/sc300.tsv"
ok "OPIC on 300 rounds" wa-opic -q -s "$tmp/sc.st" "$tmp/sc300.tsv"
cp "$tmp/stdout" "$tmp/sc.out"
ok "wa-linkmat on the same links" wa-linkmat -q -o "$tmp/sc.g" "$tmp/sc.tsv"
ok "wa-pagerank" wa-pagerank -q "$tmp/sc.g"
cp "$tmp/stdout" "$tmp/sc.pr"
vcheck "OPIC within 1% (L1 relative) of wa-pagerank" l1 "$tmp/sc.out" "$tmp/sc.pr" 0.01
verify pagerank "$tmp/sc.tsv" "$tmp/sc.np"
vcheck "wa-pagerank is numpy's PageRank (c 0.85, dangling spread)" l1 "$tmp/sc.pr" "$tmp/sc.np" 1e-6

# --- windows on a changing graph ----------------------------------------------
# 40 pages all linking to p00 for 100 rounds, then all to p20: a window of
# 20 rounds follows the new graph, plain OPIC keeps the old one in mind.
$PY - "$tmp" <<'X'
import sys
d = sys.argv[1]
for name, hub in (("old", 0), ("new", 20)):
    with open(f"{d}/{name}.tsv", "w") as f:
        for i in range(40):
            f.write(f"http://c/p{i:02}\thttp://c/p{hub:02}\n")
            f.write(f"http://c/p{i:02}\thttp://c/p{(i + 1) % 40:02}\n")
X
{ for k in $(seq 100); do cat "$tmp/old.tsv"; done
  for k in $(seq 100); do cat "$tmp/new.tsv"; done; } >"$tmp/change.tsv"
for k in $(seq 300); do cat "$tmp/new.tsv"; done >"$tmp/new300.tsv"
ok "plain OPIC on the changing graph" wa-opic -q -s "$tmp/cp.st" "$tmp/change.tsv"
cp "$tmp/stdout" "$tmp/cp.out"
ok "Interpolation, window 800 reads" wa-opic -q -W 800 -s "$tmp/cw.st" "$tmp/change.tsv"
cp "$tmp/stdout" "$tmp/cw.out"
vcheck "windowed run as simulated" sim -W 800 "$tmp/cw.st" "$tmp/cw.out" "$tmp/change.tsv"
verify pagerank "$tmp/new.tsv" "$tmp/new.pr"
vcheck "the window follows the new graph within 5%" l1 "$tmp/cw.out" "$tmp/new.pr" 0.05
! verify l1 "$tmp/cp.out" "$tmp/new.pr" 0.2 >/dev/null 2>&1
t_result $? "plain OPIC is still over 20% away from it"
ok "Variable Window, 8 measures" wa-opic -q -k 8 -s "$tmp/ck.st" "$tmp/change.tsv"
cp "$tmp/stdout" "$tmp/ck.out"
vcheck "Variable Window run as simulated" sim -k 8 "$tmp/ck.st" "$tmp/ck.out" "$tmp/change.tsv"
vcheck "8 measures follow the new graph within 5%" l1 "$tmp/ck.out" "$tmp/new.pr" 0.05
# Seed 004 Fig. 4-6: Interpolation, storing one number, does at least as
# well as 8 measures (here 2.3% against 3.6%).
iw=$(verify l1 "$tmp/cw.out" "$tmp/new.pr" 1 | awk '{ print $3 }')
vk=$(verify l1 "$tmp/ck.out" "$tmp/new.pr" 1 | awk '{ print $3 }')
awk -v a="$iw" -v b="$vk" 'BEGIN { exit !(a <= b) }'
t_result $? "Interpolation ($iw) at least as close as Variable Window ($vk)"

# --- focus ---------------------------------------------------------------------
ok "focus on URLs containing /1" wa-opic -q -f /1 -x 0.5 -s "$tmp/f.st" "$tmp/gen.tsv"
vcheck "total cash still 1" cash "$tmp/f.st"
ok "greedy list with focus" wa-opic -q -s "$tmp/f.st" --next 100000 "$tmp/empty"
focused=$(awk -F '\t' '$1 ~ /^http:\/\/h[0-9]\/1/ { s += $2 } END { printf "%.6f", s }' "$tmp/stdout")
ok "greedy list without" wa-opic -q -s "$tmp/g.st" --next 100000 "$tmp/empty"
plain=$(awk -F '\t' '$1 ~ /^http:\/\/h[0-9]\/1/ { s += $2 } END { printf "%.6f", s }' "$tmp/stdout")
awk -v a="$focused" -v b="$plain" 'BEGIN { exit !(a > 1.5 * b) }'
t_result $? "focused URLs hold more of the cash ($plain -> $focused)"

done_testing
