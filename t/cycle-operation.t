#!/bin/sh
# wa-cycle in operation, over the test web: the lock held by every process
# of a cycle (wa-cycle killed alone leaves its steps holding it, and a
# second cycle is refused while they run); SIGTERM, SIGINT and SIGHUP
# stop the steps before wa-cycle exits; settings checked before anything
# runs; a failed step shown by its own message and redone, after the fix,
# with the settings of the new run; seeds with CR LF line ends; a lock
# file that cannot be opened; -q silent for cron; the crontab examples of
# the manual pages under cron's PATH.
. "$(dirname "$0")/lib.sh"
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"
[ -r /proc/self/stat ] || skip_all "needs /proc"
under_valgrind && skip_all "under valgrind: the tools have their own tests; wa-cycle is a shell script"
web_start
web=$TESTDATA/web
# The seeds of the test web but those of strict.test, whose Crawl-delay
# would slow every fetch down.
grep -v '^http://strict[.]test' "$web/seeds.txt" >"$tmp/seeds"
now1=1800000000 now2=1800086400
scope='SCOPE=^http://[a-z]+[.]test:8080/'
resolve="RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
vars="ALLOW_PRIVATE=1 G=100"
cycle() {	# STATE [wa-cycle args]: one cycle of the test web, no wait
	s=$1; shift
	wa-cycle "$@" "$s" $vars WAIT=0 "$scope" "$resolve"
}
fresh() {	# DIR: a new state directory with the seeds
	mkdir "$1" && cp "$tmp/seeds" "$1/seeds.tsv"
}
# The processes of this test whose command line names DIR (fetch or step).
procs_of() { pgrep -f -- "$1/" | grep -v "^$$\$" | sort; }
fetching() { pgrep -f -- "^[^ ]*/wa-fetch .*$1/cycle-" | grep -c .; }
# until_fetching DIR: waits until wa-fetch has begun in DIR (its WARC
# under the temporary name), at most 15 s.
until_fetching() {
	i=0
	until ls -A "$1"/cycle-* 2>/dev/null | grep -q '^\.wa-' || [ $i -ge 300 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
gone() {	# PIDS...: whether none of them runs
	for p; do
		st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
		[ "${st%% *}" = Z ] || return 1
	done
	return 0
}
lock_free() { flock -n "$1/lock" true; }

# Cycle 1, from seeds with CR LF line ends: the plan is that of the same
# seeds with LF ends.
a=$tmp/a
mkdir "$a" && sed 's/$/\r/' "$tmp/seeds" >"$a/seeds.tsv"
ok "seeds with CR LF line ends: the cycle runs" cycle "$a" -q --now $now1
is "$(cat "$tmp/stdout" "$tmp/stderr")" "" "-q: wa-cycle prints nothing"
wa-url -q "$tmp/seeds" | awk '!seen[$1]++' | cut -f1 >"$tmp/seeds-lf"
is "$(cut -f1 "$a/cycle-1/plan.tsv")" "$(cat "$tmp/seeds-lf")" \
	"the plan has every seed, as from LF line ends"
is "$(grep -c 'carriage return' "$a/cycle-1/log")" 0 "and no seed is refused"

# Settings: each bad one refused before anything runs, with the
# message of the tool that takes it.
check_setting() {	# SETTING MESSAGE-REGEX
	b=$tmp/bad
	rm -rf "$b" && fresh "$b"
	exits 2 "$1: refused at once (status 2)" wa-cycle --now $now1 "$b" $vars "$scope" "$resolve" WAIT=0 $1
	like "$(cat "$tmp/stderr")" "$2" "  with a message that names it"
	is "$(ls -A "$b" | grep -v -e '^seeds.tsv$' -e '^lock$')" "" "  and no cycle begun"
}
check_setting G=abc "-G: 'abc' is not a number"
check_setting T=6x "-T: bad duration '6x'"
check_setting RETRY_MAX=soon "--retry-max"
check_setting WAIT=abc "-w: bad duration 'abc'"
check_setting CONNECTIONS=0 "-r"
check_setting PER_CONNECTION=x "--per-connection"
check_setting "SUBSCRIPTIONS=$tmp/seeds SUBSCRIPTION_WEIGHT=2" "subscription-weight"
check_setting USEFULNESS=both "USEFULNESS is importance or uniform, not 'both'"
check_setting 'SCOPE=a(' "SCOPE: 'a\(' is not an extended regular expression"
check_setting RESOLVE=nowhere "--resolve"
check_setting RANK_FLAGS=-c2 "-c: '2' is not a number from 0 to 1"
exits 2 "--now that is no time: refused at once" cycle "$tmp/bad" --now yesterday-ish
like "$(cat "$tmp/stderr")" "now" "  with a message that names it"

# The lock file cannot be opened (a directory there): exit 1, with the
# reason, under dash as under the shell of the script.
l=$tmp/l
fresh "$l" && mkdir "$l/lock"
for sh in sh dash bash; do
	command -v $sh >/dev/null || continue
	exits 1 "$sh: a lock file that cannot be opened: status 1" $sh "$ROOT/src/cycle/wa-cycle" "$l"
	like "$(cat "$tmp/stderr")" "$l/lock: cannot open the lock file: Is a directory" "  and says why"
done
# wa-dist opens its lock the same way (its hosts are read first).
echo 127.0.0.1 >"$tmp/one-host"
exits 1 "dash: wa-dist too: status 1" dash "$ROOT/src/cycle/wa-dist" --sshloginfile "$tmp/one-host" "$l"
like "$(cat "$tmp/stderr")" "$l/lock: cannot open the lock file: Is a directory" "  and says why"

# A signal to wa-cycle alone, during the fetch (a wait of 1 s between
# two requests to a site makes it last): the steps are stopped before
# wa-cycle exits, the lock is free, and the next run resumes the cycle.
for sig in TERM INT HUP; do
	d=$tmp/sig-$sig
	fresh "$d"
	# The shell starts a command in the background with SIGINT ignored,
	# and a suite run under nohup ignores SIGHUP: both are given back
	# their default, as when wa-cycle runs in the foreground of a
	# terminal (a signal ignored on entry cannot be trapped).
	env --default-signal=HUP,INT,TERM wa-cycle --now $now1 "$d" $vars WAIT=1 "$scope" "$resolve" \
		2>"$tmp/sig.err" &
	pid=$!
	until_fetching "$d"
	kids=$(procs_of "$d" | grep -v "^$pid\$")
	is "$([ -n "$kids" ] && [ "$(fetching "$d")" = 1 ] && echo yes)" yes "SIG$sig: the fetch runs"
	kill -$sig $pid
	wait $pid
	rc=$?
	case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
	is "$rc" "$want" "  wa-cycle exits with status $want"
	ok "  no process of the cycle runs when it has exited" gone $kids
	is "$(procs_of "$d")" "" "  none is left by its name either"
	ok "  the lock is free" lock_free "$d"
	like "$(cat "$tmp/sig.err")" "stopped by SIG$sig in step fetch" "  it says so"
	is "$([ -e "$d/cycle-1/fetch.log" ] || echo none)" none "  the fetch is not taken for complete"
done
ok "run again, the stopped cycle completes" cycle "$d" --now $now1
is "$(readlink "$d/current")" cycle-1 "  as cycle 1"

# SIGKILL to wa-cycle alone: its steps go on, holding the lock, so that
# a second cycle is refused rather than a second fetch run in the cycle
# directory.
k=$tmp/kill
fresh "$k"
wa-cycle --now $now1 "$k" $vars WAIT=1 "$scope" "$resolve" 2>/dev/null &
pid=$!
until_fetching "$k"
kill -KILL $pid
wait $pid 2>/dev/null
is "$(fetching "$k")" 1 "SIGKILL to wa-cycle alone: its fetch goes on"
is "$(lock_free "$k" || echo held)" held "  and holds the lock"
exits 3 "  a second wa-cycle is refused (status 3)" cycle "$k" --now $now1
like "$(cat "$tmp/stderr")" "another cycle is running" "  and says why"
is "$(fetching "$k")" 1 "  one fetch runs in the cycle directory, not two"
kids=$(procs_of "$k")
kill -TERM $kids
i=0
while ! gone $kids && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
ok "  when the step is over, the lock is free" lock_free "$k"
ok "  and the next run completes the cycle" cycle "$k" --now $now1
is "$(readlink "$k/current")" cycle-1 "  as cycle 1"

# A failed step shows its own message: the importance of cycle 1 made
# unreadable to wa-pagerank --init (a directory in its place) fails the
# ranking of cycle 2.
mv "$a/cycle-1/importance.tsv" "$tmp/importance1"
mkdir "$a/cycle-1/importance.tsv"
exits 15 "a failed rank step: status 15" cycle "$a" --now $now2
like "$(cat "$tmp/stderr")" "step rank failed" "  named"
like "$(cat "$tmp/stderr")" "wa-pagerank: [^ ]*cycle-1/importance.tsv" \
	"  with the message of wa-pagerank, naming the file"
like "$(cat "$a/cycle-2/log")" "wa-pagerank: [^ ]*cycle-1/importance.tsv" "  which the log has too"
rmdir "$a/cycle-1/importance.tsv" && mv "$tmp/importance1" "$a/cycle-1/importance.tsv"
ok "the cause fixed, the cycle resumes" cycle "$a" --now $now2
sed -n '/ rank failed$/,$p' "$a/cycle-2/log" >"$tmp/rerun"
is "$(grep -c 'wa-fetch ' "$tmp/rerun")/$(grep -c 'wa-pagerank ' "$tmp/rerun")" 0/1 \
	"  at the failed step: the rank step is run again, not the fetch"

# A setting changed between two runs of a cycle redoes the steps that
# use it: cycle 1 stopped after its rank step with USEFULNESS=importance,
# run again with USEFULNESS=uniform, has the uniform usefulness.
u=$tmp/u
fresh "$u"
mkdir "$u/cycle-1"
make -s -f "$ROOT/src/cycle/cycle.mk" STATE="$u" NOW=$now1 $vars WAIT=0 "$scope" "$resolve" rank \
	>/dev/null 2>&1
wa-invrank -q -o "$tmp/uniform.tsv" "$u/cycle-1/graph" 2>/dev/null
is "$(cmp -s "$u/cycle-1/usefulness.tsv" "$tmp/uniform.tsv" || echo differ)" differ \
	"the usefulness weighted by the importance is not the uniform one"
ok "run again with USEFULNESS=uniform" wa-cycle --now $now1 "$u" $vars WAIT=0 "$scope" "$resolve" USEFULNESS=uniform
same_file "$u/cycle-1/usefulness.tsv" "$tmp/uniform.tsv" "  the rank step is redone: uniform usefulness"
is "$(grep -c 'wa-fetch ' "$u/cycle-1/log")" 0 "  and the fetch, which does not use it, is not"

# -q prints nothing in the scripts that have it: wa-plot.
if command -v gnuplot >/dev/null; then
	ok "wa-plot -q" wa-plot -q "$a"
	is "$(cat "$tmp/stdout" "$tmp/stderr")" "" "  prints nothing"
	ls "$a/plots/importance.png" >/dev/null 2>&1
	t_result $? "  and draws"
fi

# The crontab examples of the manual pages, under cron's PATH, with the
# tools installed as make install puts them (PREFIX /usr/local, here in
# $tmp) and the settings of the test web added.
p=$tmp/usr/local
mkdir -p "$p/bin" "$p/share/wa"
# The tools themselves: scripts/tool-meter's stand-ins need settings
# that env -i drops.
for t in "${WA_METER_REAL:-$WA_BIN}"/wa-*; do ln -s "$t" "$p/bin/"; done
cp "$ROOT/src/cycle/wa-cycle" "$ROOT/src/cycle/wa-plot" "$p/bin/"
cp "$ROOT/src/cycle/cycle.mk" "$ROOT/src/cycle/cycle-lib.sh" "$p/share/wa/"
crontab_line() {	# MANPAGE REGEX: the command of the crontab line
	grep -E '^[0-9*/, ]+ [0-9*/, ]+ [*] [*] [*] ' "$ROOT/man/$1" | grep -E -- "$2" | head -1 |
		cut -d ' ' -f 6-
}
# One seed: a short fetch.
echo http://www.test:8080/ >"$tmp/seeds"
n=0
for ex in "wa-cycle.1:T=1d" "wa-cycle.1:timeout" "wa-plot.1:wa-plot" "wa.7:wa-cycle"; do
	cmd=$(crontab_line "${ex%%:*}" "${ex#*:}")
	[ -n "$cmd" ] || { t_result 1 "a crontab example in ${ex%%:*} (${ex#*:})"; continue; }
	n=$((n + 1))
	c=$tmp/cron-$n
	fresh "$c"
	# The state directory here, and the clock and settings of the test
	# web after those of the example.
	cmd=$(printf '%s\n' "$cmd" | sed -e "s|/usr/local|$p|g" -e "s|/srv/crawl|$c|g" \
		-e "s| crawl| $c|g" -e "s| www| $c/www|g" -e "s|/wa-cycle |/wa-cycle --now $now1 |" \
		-e "s|\(/wa-cycle [^&]*[^ &]\)|\1 $vars WAIT=0 '$scope' '$resolve'|")
	case $cmd in *wa-plot*) command -v gnuplot >/dev/null || continue ;; esac
	ok "${ex%%:*}: the crontab example '${ex#*:}' runs under cron's PATH" \
		env -i PATH=/usr/bin:/bin HOME="$tmp" sh -c "cd && $cmd"
	is "$(cat "$tmp/stdout" "$tmp/stderr")" "" "  and prints nothing, so cron mails nothing"
	is "$(readlink "$c/current")" cycle-1 "  the cycle is complete"
done

done_testing
