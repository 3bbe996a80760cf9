#!/bin/sh
# wa-dist over two loopback "hosts" (a throw-away sshd on two addresses of
# this test, t/sshd-lib.sh): two cycles of the test web whose pages,
# links, fetch log, graph and ranks equal those of the single-machine
# wa-cycle, the ranking done slice by slice on both hosts; a third with
# SUBSCRIPTIONS, ranked as wa-pagerank --subscriptions; a host that
# cannot be reached, and hosts without the tools: a clear error, the
# status of the fetch step and no half-written cycle file.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/sshd-lib.sh"
for p in parallel rsync flock; do
	command -v $p >/dev/null || skip_all "needs $p (scripts/deps install)"
done
sshd_usable || skip_all "$SSHD_WHY"
# Every step of the cycle on both hosts takes seconds under valgrind.
under_valgrind && skip_all "under valgrind: the tools have their own tests; wa-dist is a shell script"
# parallel keeps its state in PARALLEL_HOME (~/.parallel by default);
# will-cite keeps its citation notice out of the logs.
export PARALLEL_HOME=$tmp/parallel
mkdir -p "$PARALLEL_HOME" && : >"$PARALLEL_HOME/will-cite"

sshd_start 2
web_start
T=$(printf '\t')
now1=1800000000 now2=1800086400
# Every iteration of the distributed ranking is a round of ssh sessions:
# epsilon 1e-6 (both sides) keeps them to a dozen a cycle.
vars="WAIT=0 ALLOW_PRIVATE=1 G=100"
rank='RANK_FLAGS=-e 1e-6'
tol=1e-5
scope='SCOPE=^http://[a-z]+[.]test:8080/'
resolve="RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
printf '%s\n' "$SSH_LOGINS" >"$tmp/hosts"
h1=${SSHD_HOSTS%% *} h2=${SSHD_HOSTS#* }
remote=$tmp/remote
dist() {	# STATE [wa-dist args]: one distributed cycle of the test web
	s=$1; shift
	wa-dist --sshloginfile "$tmp/hosts" --workdir "$remote" "$@" "$s" $vars "$rank" "$scope" "$resolve"
}

# The reference: the single-machine cycles.
a=$tmp/a d=$tmp/d
mkdir "$a" "$d" && cp "$TESTDATA/web/seeds.txt" "$a/seeds.tsv" && cp "$a/seeds.tsv" "$d/seeds.tsv"
# The single-machine cycles run beside the distributed ones, which wait
# on ssh most of the time.
reference() {	# NOW
	wa-cycle --now $1 "$a" $vars "$rank" "$scope" "$resolve" >"$tmp/ref.out" 2>&1
	echo $? >"$tmp/ref.status"
}
reference $now1 &
ref=$!
ok "wa-dist runs cycle 1 over two hosts" dist "$d" --now $now1
wait $ref
is "$(cat "$tmp/ref.status")" 0 "wa-cycle runs cycle 1 (the reference)"

same_cycle() {	# N: cycle N of wa-dist is that of wa-cycle
	ca=$a/cycle-$1 cd=$d/cycle-$1
	is "$(readlink "$d/current")" "cycle-$1" "cycle $1: current points at it"
	# A split site is fetched sooner, which moves the times that follow
	# from the fetch times by a second or two.
	cut -f1-3 "$ca/plan.tsv" >"$tmp/want"
	cut -f1-3 "$cd/plan.tsv" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same plan (but the times)"
	cut -f1,3 "$ca/fetch.log" | sort >"$tmp/want"
	cut -f1,3 "$cd/fetch.log" | sort >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same URLs fetched, with the same statuses"
	# A site split between the hosts has its robots.txt fetched, kept in
	# the WARC and extracted on both; its pages are fetched sooner.
	sort -u "$ca/links.tsv" >"$tmp/want"
	sort -u "$cd/links.tsv" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same links (sorted, unique)"
	cut -f1,2,4- "$ca/pages.tsv" | sort -u >"$tmp/want"
	cut -f1,2,4- "$cd/pages.tsv" | sort -u >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same pages (but the fetch times)"
	cut -f1,3,4 "$ca/history.tsv" >"$tmp/want"
	cut -f1,3,4 "$cd/history.tsv" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same history (but the fetch times)"
	same_file "$cd/types.tsv" "$ca/types.tsv" "cycle $1: the same types.tsv"
	wa-linkmat --dump "$ca/graph" >"$tmp/want"
	wa-linkmat --dump "$cd/graph" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same graph (wa-linkmat --dump)"
	wa-linkmat --dump-nodes "$ca/graph" >"$tmp/want"
	wa-linkmat --dump-nodes "$cd/graph" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same nodes, types and degrees"
	tsv_near "$cd/importance.tsv" "$ca/importance.tsv" $tol "cycle $1: the importance within $tol"
	tsv_near "$cd/usefulness.tsv" "$ca/usefulness.tsv" $tol "cycle $1: the usefulness within $tol"
	# Less than 1 by the share of the nodes that are not ranked.
	is "$(awk -F '\t' '{ s += $2 } END { printf "%.6f", s }' "$cd/importance.tsv")" \
		"$(awk -F '\t' '{ s += $2 } END { printf "%.6f", s }' "$ca/importance.tsv")" \
		"cycle $1: the importance sums as the local cycle's"
	cut -f1,3,4,5,8 "$ca/lambda.tsv" >"$tmp/want"
	cut -f1,3,4,5,8 "$cd/lambda.tsv" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same change-rate estimates (but the times)"
	awk -F '\t' '{ print $1, $2, ($6 == "-") }' "$ca/state.tsv" >"$tmp/want"
	awk -F '\t' '{ print $1, $2, ($6 == "-") }' "$cd/state.tsv" >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the same page state (types, pages accessed)"
	# Discovery goes by importance, whose ties the two rankings may break
	# apart within $tol: the same number of rows of each reason, and the
	# same URLs for the others.
	cut -f2 "$ca/next.tsv" | sort | uniq -c >"$tmp/want"
	cut -f2 "$cd/next.tsv" | sort | uniq -c >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: the next plan has as many rows of each reason"
	awk -F '\t' '$2 !~ /^discover/ { print $1 }' "$ca/next.tsv" | sort >"$tmp/want"
	awk -F '\t' '$2 !~ /^discover/ { print $1 }' "$cd/next.tsv" | sort >"$tmp/got"
	same_file "$tmp/got" "$tmp/want" "cycle $1: and the same URLs to refresh"
	is "$(sed -n 's/^\(urls\|fetched\|new\|changed\|error .*\) .*/&/p' "$cd/report.txt")" \
		"$(sed -n 's/^\(urls\|fetched\|new\|changed\|error .*\) .*/&/p' "$ca/report.txt")" \
		"cycle $1: the report counts the same fetches"
	like "$(grep -c '^  iteration [0-9]* importance' "$cd/report.txt")" '^[1-9][0-9]*$' \
		"cycle $1: the report has the residuals of the distributed ranking"
	is "$(ls -A "$cd" | grep '^[.]')" "" "cycle $1: no temporary files left"
}
same_cycle 1

# The parts: one per host, the plan split whole by wa-partition's rules.
c=$d/cycle-1
sed "s/^/# rule: /" "$c/partition.tsv"
is "$(cut -f2 "$c/partition.tsv" | sort -u | tr '\n' ' ')" "0 1 " "the rules give parts 0 and 1"
wa-partition -a "$c/partition.tsv" "$c/plan.tsv" | cut -f1,5 | sort >"$tmp/tagged"
for k in 0 1; do
	awk -F '\t' -v k=$k '$2 == k { print $1 }' "$tmp/tagged" >"$tmp/part$k"
	like "$(cd "$c" && ls -- wa-p$k-*.warc.gz)" "^wa-p$k-[0-9]{17}-00000-[A-Za-z0-9._-]+[.]warc[.]gz\$" \
		"part $k's WARC file is named wa-p$k-TIMESTAMP-SERIAL-HOST.warc.gz"
	is "$(zcat "$c"/wa-p$k-*.warc.gz | tr -d '\r' | sed -n 's/^isPartOf: //p')" "${d##*/}" \
		"its warcinfo's isPartOf is the name of the state directory here"
	zcat "$c"/wa-p$k-*.warc.gz | tr -d '\r' | sed -n 's/^WARC-Target-URI: //p' | sort -u >"$tmp/warc$k"
	is "$(comm -13 "$tmp/part$k" "$tmp/warc$k" | grep -v '/robots.txt$')" "" \
		"the WARC of part $k holds only part $k's URLs (and robots.txt)"
done
like "$(grep "job .* on ssh -F [^ ]* $h1: exit 0.*sh in/job.sh # part 0" "$c/log")" . "host 1 fetched part 0"
like "$(grep "job .* on ssh -F [^ ]* $h2: exit 0.*sh in/job.sh # part 1" "$c/log")" . "host 2 fetched part 1"
is "$(sed -n "s|^wa-dist: part \([01]\) of cycle 1 in $remote/[^/]*/part-\1\$|\1|p" "$c/log" | sort | tr '\n' ' ')" "0 1 " \
	"each part in a working directory of its own"
its=$(sed -n 's/^wa-dist: \([0-9]*\) iterations.*/\1/p' "$c/rank.log")
like "$its" '^[1-9][0-9]*$' "rank.log says how many iterations the ranking took"
is "$(grep -c "on ssh -F [^ ]* $h1: exit 0.*--slice 0/2 .* # part 0$" "$c/log")" "$its" \
	"host 1 computed slice part 0/2 in every iteration"
is "$(grep -c "on ssh -F [^ ]* $h2: exit 0.*--slice 1/2 .* # part 1$" "$c/log")" "$its" \
	"host 2 computed slice part 1/2 in every iteration"
wa-pagerank --jacobi -v -e 1e-6 -o "$tmp/jacobi.tsv" "$c/graph" 2>"$tmp/jacobi.log"
is "$its" "$(sed -n 's/.* \([0-9]*\) iterations.*/\1/p' "$tmp/jacobi.log")" \
	"as many iterations as wa-pagerank --jacobi on one machine"
is "$(sed -n 's/^wa-dist: iteration [0-9]*: \(.*\); [0-9.]* s$/\1/p' "$c/rank.log")" \
	"$(sed -n 's/^wa-pagerank: iteration [0-9]*: \(.*\); [0-9.]* s$/\1/p' "$tmp/jacobi.log")" \
	"with the same changes, iteration by iteration"
tsv_near "$c/importance.tsv" "$tmp/jacobi.tsv" 1e-15 "and the same importance"
is "$(ls -A "$remote" 2>/dev/null)" "" "the hosts' working directories are removed"

reference $now2 &
ref=$!
ok "wa-dist runs cycle 2" dist "$d" --now $now2
wait $ref
is "$(cat "$tmp/ref.status")" 0 "wa-cycle runs cycle 2 (the reference)"
same_cycle 2
like "$(head -1 "$d/cycle-2/rank.log")" "from $d/cycle-1/importance.tsv" \
	"cycle 2 ranks from cycle 1's importance"
like "$(grep -e "-P $d/cycle-1/partition.tsv" "$d/cycle-2/log")" "^wa-partition " \
	"and partitions from cycle 1's rules"

# SUBSCRIPTIONS (wa-pagerank --subscriptions): the file goes to the hosts
# with the graph, and every step of the ranking takes it with
# SUBSCRIPTION_WEIGHT.  Cycle 3 subscribes to the three least important
# pages of cycle 2 (and a URL of no page); its importance is that of
# wa-pagerank --subscriptions on one machine, where they gain.
now3=$((now2 + 86400))
sort -t "$T" -k2,2g "$d/cycle-2/importance.tsv" | head -3 | cut -f1 |
	{ cat; echo "http://nowhere.test/"; } | sort >"$tmp/subs.tsv"
ok "wa-dist runs cycle 3 with SUBSCRIPTIONS" wa-dist --sshloginfile "$tmp/hosts" --workdir "$remote" \
	--now $now3 "$d" $vars "$rank" "$scope" "$resolve" "SUBSCRIPTIONS=$tmp/subs.tsv" \
	SUBSCRIPTION_WEIGHT=0.3
c=$d/cycle-3
like "$(cat "$c/rank.log")" "subscriptions from $tmp/subs.tsv, weight 0.3" "rank.log names the subscriptions"
for k in 0 1; do
	like "$(grep -c "exit 0.*--subscriptions subscriptions.tsv --subscription-weight 0.3 --slice $k/2 .* # part $k$" "$c/log")" \
		'^[1-9]' "every step of part $k takes them"
done
wa-pagerank -q --jacobi -e 1e-6 --subscriptions "$tmp/subs.tsv" --subscription-weight 0.3 \
	-o "$tmp/subs-one.tsv" "$c/graph" 2>/dev/null
tsv_near "$c/importance.tsv" "$tmp/subs-one.tsv" $tol "the importance of wa-pagerank --subscriptions within $tol"
wa-pagerank -q --jacobi -e 1e-6 -o "$tmp/subs-none.tsv" "$c/graph"
is "$(join -t "$T" "$tmp/subs.tsv" "$c/importance.tsv" | join -t "$T" - "$tmp/subs-none.tsv" |
	awk -F "$T" '$2 > $3 { n++ } END { print n + 0 }')" 3 "the three subscribed pages gain"
is "$(ls -A "$remote" 2>/dev/null)" "" "the hosts' working directories are removed"
exits 2 "SUBSCRIPTIONS of no file: usage error" \
	wa-dist --sshloginfile "$tmp/hosts" "$d" "SUBSCRIPTIONS=$tmp/nowhere.tsv"
like "$(cat "$tmp/stderr")" "SUBSCRIPTIONS: $tmp/nowhere.tsv: no such readable file" "and says why"
exits 2 "SUBSCRIPTION_WEIGHT=1: usage error" \
	wa-dist --sshloginfile "$tmp/hosts" "$d" "SUBSCRIPTIONS=$tmp/subs.tsv" SUBSCRIPTION_WEIGHT=1
like "$(cat "$tmp/stderr")" "SUBSCRIPTION_WEIGHT: '1' is not a number from 0 to below 1" "and says why"

# A host that cannot be reached: the fetch step fails and names it.
e=$tmp/e
mkdir "$e" && cp "$a/seeds.tsv" "$e/seeds.tsv"
{ echo "$h1" | sed "s|.*|ssh -F $SSH_CONFIG &|"; echo "ssh -F $SSH_CONFIG $(t_addr 3)"; } >"$tmp/hosts-bad"
exits 11 "a host that cannot be reached: step fetch fails (status 11)" \
	wa-dist --sshloginfile "$tmp/hosts-bad" --workdir "$remote" --now $now1 "$e" $vars "$rank" "$scope" "$resolve"
like "$(head -1 "$tmp/stderr")" "step fetch failed \(status 11\): part 1 on host 'ssh -F [^ ]* $(t_addr 3)': ssh failed" \
	"the message names the step, the part and the host"
is "$(ls -A "$e/cycle-1" | grep -v -e '^plan.tsv$' -e '^log$' -e '^partition.tsv$' -e '^[.]settings-plan$')" "" \
	"the cycle has its plan and log, and no fetch log, WARC or temporary file"
is "$([ -e "$e/current" ] || echo no)" no "and is not complete"
exits 11 "hosts without the wa tools: step fetch fails (status 11)" \
	wa-dist --sshloginfile "$tmp/hosts" --workdir "$remote" --remote-bin "$tmp/nowhere" \
	--now $now1 "$e" $vars "$rank" "$scope" "$resolve"
like "$(head -1 "$tmp/stderr")" "step fetch failed \(status 11\): part [01] on host 'ssh -F [^ ]* $t_net[.][12]': exit 11" \
	"the message names the part and the host"
like "$(cat "$e/cycle-1/log")" "$tmp/nowhere/wa-fetch: (No such file|not found)" "and the log has the host's reason"
is "$(ls -A "$e/cycle-1" | grep -v -e '^plan.tsv$' -e '^log$' -e '^partition.tsv$' -e '^[.]settings-plan$')" "" \
	"and the cycle has no fetch log, WARC or temporary file"
is "$(ls -A "$remote" 2>/dev/null)" "" "the hosts' working directories are removed"

# Usage and the conventions of wa-cycle.
exits 3 "a second cycle is refused while one runs (status 3)" \
	flock "$d/lock" wa-dist --sshloginfile "$tmp/hosts" "$d"
like "$(cat "$tmp/stderr")" "another cycle is running" "and says why"
exits 2 "no state directory: usage error" wa-dist
exits 2 "a ranking flag it cannot honour: usage error" \
	wa-dist --sshloginfile "$tmp/hosts" "$d" RANK_FLAGS=--renormalize
like "$(cat "$tmp/stderr")" "RANK_FLAGS: --renormalize is not supported" "and says which"
exits 1 "no sshloginfile: status 1" wa-dist "$d"
like "$(cat "$tmp/stderr")" "sshloginfile" "and says so"

done_testing
