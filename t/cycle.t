#!/bin/sh
# The acquisition cycle (src/cycle/cycle.mk, src/cycle/wa-cycle) over the test
# web: two cycles whose files match the hand-written links and pages of
# testdata/web/expected, a cycle stopped after each step (and one killed
# during its fetch) that resumes to the same files, the lock, and the
# exit status that names a failed step.
. "$(dirname "$0")/lib.sh"
web=$TESTDATA/web
mk=$ROOT/src/cycle/cycle.mk
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"
needs_python networkx
web_start
T=$(printf '\t')
now1=1800000000 now2=1800086400
vars="WAIT=0 ALLOW_PRIVATE=1 G=100"
scope='SCOPE=^http://[a-z]+[.]test:8080/'
resolve="RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
cycle() {	# STATE [wa-cycle args]: one cycle of the test web
	s=$1; shift
	wa-cycle "$@" "$s" $vars "$scope" "$resolve"
}

# Cycle 1: the seeds are the plan; the crawl is the one of
# crawl-test-web.t, so its links and pages are the hand-written ones.
a=$tmp/a
mkdir "$a" && cp "$web/seeds.txt" "$a/seeds.tsv"
before=$(date +%s)
ok "wa-cycle runs cycle 1" cycle "$a" --now $now1
after=$(date +%s)
c1=$a/cycle-1
is "$(readlink "$a/current")" cycle-1 "current points at cycle 1"
is "$(cut -f1,2 "$c1/plan.tsv" | tr '\t' ' ' | sort -u | head -3)" \
	"$(sort -u "$web/seeds.txt" | head -3 | sed 's/$/ seed/')" "the plan of cycle 1 is the seeds"
is "$(cut -f1 "$c1/plan.tsv")" "$(cat "$web/seeds.txt")" "in their order"
is "$(cut -f1 "$c1/fetch.log" | sort)" "$(sort "$web/seeds.txt")" "every seed is fetched once"
is "$(awk -F '\t' -v lo=$now1 -v hi=$((now1 + after - before)) \
	'$2 != "-" && ($2 < lo || $2 > hi)' "$c1/fetch.log")" "" \
	"on the clock of --now: fetch times from NOW to NOW + the seconds the cycle ran"
sort -u "$c1/links.tsv" >"$tmp/links1"
sort "$c1/links.tsv" >"$tmp/links1.all"
same_file "$tmp/links1" "$web/expected/links.tsv" "the links are the hand-written ones"
cut -f1,2,5,6,7 "$c1/pages.tsv" | sort -u >"$tmp/pages1"
same_file "$tmp/pages1" "$web/expected/pages.tsv" "the pages too"
(cut -f1,2 "$web/expected/links.tsv" | tr '\t' '\n'; cut -f1 "$web/expected/pages.tsv") |
	sort -u >"$tmp/nodes"
wa-linkmat --dump-nodes "$c1/graph" | cut -f1 | sort >"$tmp/graph-nodes"
same_file "$tmp/graph-nodes" "$tmp/nodes" "the graph has every page and link target"
wa-linkmat --dump "$c1/graph" >"$tmp/dump1"
awk -F '\t' '$1 != $2 && $3 !~ /^sitemap/' "$web/expected/links.tsv" | cut -f1,2 |
	sort -u >"$tmp/want-dump"
same_file "$tmp/dump1" "$tmp/want-dump" \
	"and exactly the links (self links dropped, those of robots.txt and sitemaps hints)"
wa-linkmat --dump-nodes "$c1/graph" | awk -F '\t' '$2 !~ /^(other|error|dead|robots|sitemap)$/' |
	cut -f1 >"$tmp/ranked"
is "$(grep -c 'robots\.txt$' "$tmp/ranked")" 0 "no robots.txt is a page"
is "$(cut -f1 "$c1/importance.tsv")" "$(cat "$tmp/ranked")" \
	"importance for every node that may be a document, sorted"
is "$(cut -f1 "$c1/usefulness.tsv")" "$(cat "$tmp/ranked")" "usefulness too"
vcheck() {	# MSG VERIFY-ARGS...
	msg=$1; shift
	out=$("$PY" "$T_DIR/rank-verify.py" "$@" 2>&1)
	t_result $? "$msg"
	printf '%s\n' "$out" | sed 's/^/#   /'
}
vcheck "the importance is networkx's over the links" pagerank "$c1/links.tsv" "$c1/pages.tsv" \
	"$c1/importance.tsv"
cut -f1,2 "$c1/importance.tsv" >"$tmp/imp1"
vcheck "the usefulness is networkx's, weighted by the importance" invrank-importance \
	"$c1/links.tsv" "$c1/pages.tsv" "$c1/usefulness.tsv" --importance "$tmp/imp1"
ngood=$(awk -F '\t' '$3 ~ /^(2[0-9][0-9]|304)$/' "$c1/fetch.log" | wc -l)
is "$(wc -l <"$c1/history.tsv")" "$ngood" "the history has an observation per 2xx fetch"
is "$(cut -f1 "$c1/lambda.tsv")" "$(cut -f1 "$c1/history.tsv")" "and a change rate per page observed"
is "$(cut -f1 "$c1/state.tsv")" "$(cat "$tmp/nodes")" "the page state has every node"
awk -F '\t' '$3 !~ /^(interrupted|crawl-delay|retry-after)$/' "$c1/fetch.log" | cut -f1 |
	sort -u >"$tmp/tried"
awk -F "\t" '$6 != "-"' "$c1/state.tsv" | cut -f1 >"$tmp/accessed"
same_file "$tmp/accessed" "$(join "$tmp/tried" "$tmp/nodes" >"$tmp/tried-nodes"; echo "$tmp/tried-nodes")" \
	"with an access for the pages tried"
is "$(cut -f1,2 "$c1/failures.tsv" | tr '\t\n' ' ;')" \
	"$(awk -F '\t' '$3 !~ /^(2[0-9][0-9]|3[0-9][0-9]|interrupted|crawl-delay|retry-after)$/ \
	{ print $1 " 1" }' "$c1/fetch.log" | sort -u | tr '\n' ';')" \
	"and one failure for each page whose fetch failed"
is "$(awk -F '\t' '$1 == "rows" { print $2 }' "$c1/summary.tsv")" 25 "the plan holds G x T = 25 rows"
is "$(grep -Evc '^http://[a-z]+\.test:8080/' "$c1/next.tsv")" 0 "and nothing outside SCOPE"
wa-schedule -q -G 100 -T 6h --now $((now1 + 21600)) --overrides "$c1/overrides.tsv" \
	--plan "$tmp/freq1" "$c1/state.tsv" >"$tmp/next1"
same_file "$c1/next.tsv" "$tmp/next1" "the plan is made for the next cycle, T = 6h later"
same_file "$c1/frequencies.tsv" "$tmp/freq1" "with every page's frequency beside it"
disallowed=$(awk -F '\t' '$2 == "disallow"' "$web/expected/robots.tsv" | cut -f1 |
	join - "$(sort "$web/seeds.txt" >"$tmp/s"; echo "$tmp/s")" | wc -l)
r=$c1/report.txt
is "$(sed -n 's/^fetched //p' "$r")" $(( $(wc -l <"$web/seeds.txt") - disallowed )) \
	"the report counts the pages fetched (every seed robots.txt allows)"
is "$(sed -n 's/^new //p' "$r")" "$ngood" "every 2xx fetch is new"
is "$(sed -n 's/^error robots //p' "$r")" "$disallowed" "the robots errors are the disallowed seeds"
is "$(sed -n 's/^error 404 //p' "$r")" "$(awk -F '\t' '$3 == 404' "$c1/fetch.log" | wc -l)" \
	"and the 404s"
is "$(sed -n '/^top 10/,/^rank/p' "$r" | sed '1d;$d' | awk '{ print $2 }')" \
	"$(sort -t "$T" -k2,2gr -k1,1 "$c1/importance.tsv" | head -10 | cut -f1)" \
	"the top 10 pages by importance"
like "$(grep -c '^  iteration' "$r")" '^[1-9][0-9]*$' "the rank residuals"
like "$(grep '^  cost ' "$r")" '^  cost [0-9]' "and the plan summary"

# Cycle 2, a day later: the plan of cycle 1, conditional fetches of an
# unchanged web, the history extended, the graph updated.
ok "wa-cycle runs cycle 2" cycle "$a" --now $now2
c2=$a/cycle-2
is "$(readlink "$a/current")" cycle-2 "current points at cycle 2"
wa-schedule -q -G 100 -T 6h --retry-max 30d --now $now2 --overrides "$c1/overrides.tsv" \
	"$c1/state.tsv" >"$tmp/plan2"
same_file "$c2/plan.tsv" "$tmp/plan2" \
	"the plan of cycle 2 is the schedule of cycle 1's state at cycle 2's clock"
is "$(awk -F '\t' '$9 == 1' "$c2/fetch.log" | wc -l)" 0 "nothing changed in the test web"
is "$(sed -n 's/^changed //p' "$c2/report.txt")" 0 "and the report says so"
refetched=$(cut -f1 "$c1/history.tsv" | join - "$(cut -f1 "$c2/fetch.log" | sort >"$tmp/f2"; echo "$tmp/f2")" | wc -l)
is "$(awk -F '\t' '$9 == 0' "$c2/fetch.log" | wc -l)" "$refetched" \
	"every page fetched again is unchanged (304 or same digest)"
ngood2=$(awk -F '\t' '$3 ~ /^(2[0-9][0-9]|304)$/' "$c2/fetch.log" | wc -l)
is "$(wc -l <"$c2/history.tsv")" $((ngood + ngood2)) "the history gains the observations of cycle 2"
is "$(sort -c -t "$T" -k1,1 -k2,2n "$c2/history.tsv" && echo sorted)" sorted "and stays sorted"
wa-linkmat --dump "$c2/graph" >"$tmp/dump2"
is "$(comm -23 "$tmp/dump1" "$tmp/dump2")" "" "the graph keeps the links of cycle 1"
awk -F '\t' '$1 != $2 && $3 !~ /^sitemap/' "$c2/links.tsv" | cut -f1,2 | sort -u |
	comm -23 - "$tmp/dump2" >"$tmp/lost"
is "$(cat "$tmp/lost")" "" "and has those of cycle 2"
like "$(grep -e '-u .*/cycle-1/graph' "$c2/log")" wa-linkmat "cycle 2 updates cycle 1's graph (-u)"
like "$(grep -A1 -e 'wa-pagerank -v' "$c2/log")" "--init '[^']*/cycle-1/importance.tsv'" \
	"and ranks from its importance (--init)"
like "$(grep -e '-P .*/cycle-1/fetched.tsv' "$c2/log")" wa-fetch "and fetches with its validators (-P)"
wa-pagerank -q -o "$tmp/cold.tsv" "$c2/graph"
tsv_near "$c2/importance.tsv" "$tmp/cold.tsv" 1e-8 "the warm start gives the importance of a cold one"

# Resume: cycle 1 stopped after each step, with the debris of a kill
# in the next one, then run again, ends with the files of the cycle
# that ran through (a) from the same fetch.
b0=$tmp/b0
mkdir -p "$b0/cycle-1" && cp "$web/seeds.txt" "$b0/seeds.tsv"
cp -p "$c1/plan.tsv" "$b0/cycle-1/"
cp -p "$c1"/*.warc.gz "$c1/fetch.log" "$b0/cycle-1/"
files() { (cd "$1" && find . -type f ! -name log ! -name rank.log ! -name '.*' ! -name '*.tmp' | sort); }
files "$c1" >"$tmp/files1"
same_cycle() {	# DIR MSG
	files "$1" >"$tmp/files"
	d=
	while read -r f; do cmp -s "$c1/$f" "$1/$f" || d="$d $f"; done <"$tmp/files1"
	if cmp -s "$tmp/files" "$tmp/files1" && [ -z "$d" ]; then t_result 0 "$2"; else
		t_result 1 "$2"
		echo "#   differ:$d"
		diff "$tmp/files1" "$tmp/files" | sed 's/^/#   /'
	fi
}
# Under valgrind every tool runs for seconds: the resumed and killed
# cycles (ten more) are left out there; the tools have their own tests.
if under_valgrind; then
	echo "# under valgrind: the resumed and killed cycles are skipped"
else
	prev=fetch
	for step in extract history graph rank lambda state next report; do
		s=$tmp/stop-$step
		cp -a "$b0" "$s"
		make -s -f "$mk" STATE="$s" NOW=$now1 $vars "$scope" "$resolve" $prev >/dev/null 2>&1
		echo garbage >"$s/cycle-1/$step.tmp"
		echo garbage >"$s/cycle-1/.$step.tsv.XXXXXX"
		ok "cycle 1 stopped before step $step resumes" cycle "$s" --now $now1
		same_cycle "$s/cycle-1" "and ends with the files of the uninterrupted cycle"
		prev=$step
	done

	# Killed during the fetch (SIGKILL to the whole run): the fetch starts
	# again, and what does not depend on the clock is the same.
	d=$tmp/d
	mkdir "$d" && cp "$web/seeds.txt" "$d/seeds.tsv"
	setsid sh -c 'exec wa-cycle --now '$now1' "$@"' sh "$d" $vars "$scope" "$resolve" &
	pid=$!
	i=0
	# wa-fetch's WARC under its temporary name: the fetch has begun.
	until ls -A "$d/cycle-1" 2>/dev/null | grep -q '^\.wa-' || [ $i -ge 300 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL -$pid
	wait $pid 2>/dev/null
	# The steps die a little after wa-cycle, holding the lock until then.
	i=0
	# cat, not awk's file arguments: a process that ends between the glob
	# and its read would make mawk stop with status 2, ending the wait.
	while cat /proc/[0-9]*/stat 2>/dev/null | awk -v g=$pid '
	    { sub(/^.*\) /, ""); if ($3 == g && $1 != "Z") found = 1 }
	    END { exit !found }' && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	is "$([ -e "$d/cycle-1/fetch.log" ] || [ -e "$d/current" ] || echo stopped)" stopped \
		"a cycle killed during its fetch has no fetch log"
	ok "run again, it completes" cycle "$d" --now $now1
	is "$(ls -A "$d/cycle-1" | grep '^[.]')" "" "and leaves no temporary files"
	sort "$d/cycle-1/links.tsv" >"$tmp/linksd"
	same_file "$tmp/linksd" "$tmp/links1.all" "  with the same links"
	for f in plan.tsv importance.tsv usefulness.tsv types.tsv; do
		same_file "$d/cycle-1/$f" "$c1/$f" "  the same $f"
	done
	wa-linkmat --dump "$d/cycle-1/graph" >"$tmp/dumpd"
	same_file "$tmp/dumpd" "$tmp/dump1" "  and the same graph"
fi

# The lock: a cycle while another holds STATE/lock is refused.
exits 3 "a second cycle is refused while one runs (status 3)" \
	flock "$a/lock" wa-cycle --now $now2 "$a" $vars "$scope" "$resolve"
like "$(cat "$tmp/stderr")" "another cycle is running" "and says why"
is "$(readlink "$a/current")" cycle-2 "nothing ran"

# Failures name the step.
e=$tmp/e
mkdir "$e"
exits 10 "no seeds file: step plan fails (status 10)" cycle "$e" --now $now1
like "$(cat "$tmp/stderr")" "step plan failed" "the message names the step"
like "$(cat "$e/cycle-1/log")" "seeds.tsv" "and the log has make's reason"
cp "$web/seeds.txt" "$e/seeds.tsv"
rm -r "$e/cycle-1" && echo >"$e/cycle-1"
exits 10 "a cycle directory that cannot be made: status 10" cycle "$e" --now $now1
e=$tmp/e2
cp -a "$b0" "$e"
exits 2 "a bad setting is refused before any step (status 2)" \
	wa-cycle --now $now1 "$e" $vars "$scope" "$resolve" G=-1
mkdir "$e/cycle-1/next.tsv.tmp"
exits 18 "a failing wa-schedule: step next fails (status 18)" cycle "$e" --now $now1
like "$(cat "$tmp/stderr")" "step next failed" "the message names it"
is "$([ -e "$e/current" ] || echo no)" no "and the cycle is not complete"
rmdir "$e/cycle-1/next.tsv.tmp"
ok "with the cause fixed, the cycle resumes at that step" cycle "$e" --now $now1
same_cycle "$e/cycle-1" "and ends with the files of the uninterrupted cycle"
exits 2 "no state directory: usage error" wa-cycle
exits 1 "a state directory that does not exist: status 1" wa-cycle "$tmp/nothing"

done_testing
