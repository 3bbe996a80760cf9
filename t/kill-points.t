#!/bin/sh
# Kill -9 at random points: scripts/
# kill-points on every tool with small inputs and 5 points each, then on a
# whole cycle (src/cycle/wa-cycle over the test web, its process group
# killed, 3 points after its fetch): no output is ever partial under its
# final name and the rerun gives the bytes of an uninterrupted run.  The
# 50-point runs on larger inputs, and of a cycle from its seeds, are
# benchmarks (scripts/kill-points --suite; its header shows the cycle).
# scripts/bench-reliability runs this file with more points: KILL_POINTS
# (5) for each tool, KILL_CYCLE_POINTS (3) for the cycle, KILL_SCALE (0.1)
# for the inputs' size; with KILL_REPORT set it appends the lines of
# kill-points (tool, points, mid-run, partial, mismatch) to that file.
. "$(dirname "$0")/lib.sh"
under_valgrind && skip_all "kill timing means nothing under valgrind"
gen=$(script_prog gen-graph) || skip_all "gen-graph is not built (make)"
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"

# Each line: tool, points, mid-run, partial, mismatch.
check() {	# REPORT-FILE
	while IFS="$(printf '\t')" read -r name points mid partial mismatch; do
		case $name in '#'*) continue ;; esac
		is "$partial/$mismatch" 0/0 "$name: $points kill points ($mid mid-run): no partial final, no mismatch after the rerun"
		[ "$mid" -gt 0 ]
		t_result $? "$name: some kills land while it runs"
	done <"$1"
}

"$PY" "$ROOT/scripts/kill-points" --suite -n "${KILL_POINTS:-5}" --scale "${KILL_SCALE:-0.1}" --gen "$gen" \
	--dir "$tmp/suite" >"$tmp/suite.tsv" 2>"$tmp/suite.err"
rc=$?
is "$rc" 0 "kill-points --suite exits 0"
sed 's/^/#   /' "$tmp/suite.err" | head -20
is "$(grep -vc '^#' "$tmp/suite.tsv")" 9 "a line for each of the nine tools"
check "$tmp/suite.tsv"

# The checker itself: a command that writes its output in place is caught.
mkdir "$tmp/bad"
seq 1 300000 >"$tmp/bad/in"
"$PY" "$ROOT/scripts/kill-points" -n 5 --name in-place -d "$tmp/bad" -o out \
	'while read -r l; do echo "$l"; done <in >out' >"$tmp/bad.tsv" 2>"$tmp/bad.err"
is "$?" 1 "kill-points fails on a command writing its output in place"
like "$(cut -f4 "$tmp/bad.tsv")" '^[1-9]' "and counts the partial files"

# The whole cycle, killed with its process group, resumes to the same
# files.  From the seeds, the fetch takes nearly all of a cycle's time
# (t/cycle.t kills one there); here the cycle starts from a fetch already
# made (its plan, WARC and log are inputs), so that the kills land in the
# steps after it, and every file must come out byte for byte.  A kill
# after the cycle made STATE/current finds it complete: the rerun is then
# nothing (wa-cycle would start the next cycle).
web_start
resolve="RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
cycle="[ -e current ] || exec '$ROOT/src/cycle/wa-cycle' --now 1800000000 . WAIT=0 ALLOW_PRIVATE=1 G=100 \
	'SCOPE=^http://[a-z]+[.]test:8080/' '$resolve'"
c=cycle-1
s=$tmp/state
mkdir "$s" && cp "$TESTDATA/web/seeds.txt" "$s/seeds.tsv"
f=$tmp/fetched
mkdir -p "$f/$c" && cp "$TESTDATA/web/seeds.txt" "$f/seeds.tsv"
ok "a cycle from the seeds" sh -c "cd '$s' && $cycle"
cp -p "$s/$c/plan.tsv" "$s/$c"/*.warc.gz "$s/$c/fetch.log" "$f/$c/"
outs=
for o in links.tsv pages.tsv history.tsv types.tsv fetched.tsv access.tsv graph \
    usefulness.tsv importance.tsv lambda.tsv state.tsv overrides.tsv frequencies.tsv \
    next.tsv summary.tsv; do
	outs="$outs -o $c/$o"
done
"$PY" "$ROOT/scripts/kill-points" -n "${KILL_CYCLE_POINTS:-3}" --name wa-cycle-after-fetch -d "$f" $outs \
	"$cycle" >"$tmp/cycle2.tsv" 2>"$tmp/cycle2.err"
is "$?" 0 "kill-points on wa-cycle after its fetch exits 0"
sed 's/^/#   /' "$tmp/cycle2.err" | head -20
check "$tmp/cycle2.tsv"
[ -z "${KILL_REPORT:-}" ] || grep -hv '^#' "$tmp/suite.tsv" "$tmp/cycle2.tsv" >>"$KILL_REPORT"

done_testing
