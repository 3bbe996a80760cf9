#!/bin/sh
# make install as an operator uses it: the installed tree alone, with
# nothing of the source tree on PATH, runs the loopback example of
# wa-cycle(1) to the hand-written links of the test web, draws the cycle
# with wa-plot, runs cycle.mk by hand as wa-cycle(1) shows, and (where a
# throw-away sshd can run) a wa-dist cycle over two loopback hosts.  Every
# installed program has a page, and every page an installed page names is
# installed.
. "$(dirname "$0")/lib.sh"
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"
under_valgrind && skip_all "the installed tools are the plain build, which make check runs here"
for p in make mandoc gnuplot; do
	command -v $p >/dev/null || skip_all "needs $p (scripts/deps install)"
done
T=$(printf '\t')
prefix=$tmp/prefix

# The suite's own build: the sanitizer build when the tools carry ASan.
# The make that runs the suite must not hand its job server down.
unset MAKEFLAGS MFLAGS MAKELEVEL
build=
under_asan && build=SANITIZE=1
ok "make install PREFIX=... installs" make -s -C "$ROOT" install PREFIX="$prefix" $build

# ---- Pages and programs ----
progs=$(cd "$prefix/bin" && ls)
pages=$(cd "$prefix/share/man" && ls man*/*)
for p in wa-url wa-fetch wa-extract wa-linkmat wa-pagerank wa-invrank wa-lambda \
    wa-schedule wa-opic wa-partition wa-cycle wa-dist wa-plot; do
	ok "$p is installed" test -x "$prefix/bin/$p"
done
missing=
for p in $progs; do
	[ -f "$prefix/share/man/man1/$p.1" ] || missing="$missing $p"
done
is "$missing" "" "every installed program has its page in man1"
for p in man7/wa.7 man5/wa-formats.5; do
	ok "$p is installed" test -f "$prefix/share/man/$p"
done
# A page of wa is one in man/ of the source tree or named wa*; the others
# (sort(1), cron(8)...) are the system's.
xrefs() {	# PAGE: "NAME SECTION" of every .Xr of the page, once each
	awk '/^\./ { for (i = 1; i < NF - 1; i++) if ($i == "Xr" || $i == ".Xr") print $(i + 1), $(i + 2) }' "$1" |
		sort -u
}
dangling=
for page in $pages; do
	refs=$(xrefs "$prefix/share/man/$page")
	while read -r name sec; do
		[ -n "$name" ] || continue
		[ -f "$prefix/share/man/man$sec/$name.$sec" ] && continue
		case $name in wa | wa-*) dangling="$dangling $page:$name($sec)"; continue ;; esac
		[ -f "$ROOT/man/$name.$sec" ] && dangling="$dangling $page:$name($sec)"
	done <<EOF
$refs
EOF
done
is "$dangling" "" "every page of wa that an installed page names is installed"
# The check above must see a reference that is not installed.
printf '.Sh SEE ALSO\n.Pq Xr wa-nowhere 1 , Xr sort 1 .\n.It Xr cron 8\n.Xr wa 7 ,\n' >"$tmp/probe.1"
is "$(xrefs "$tmp/probe.1" | tr '\n' ' ')" "cron 8 sort 1 wa 7 wa-nowhere 1 " \
	"the reference check reads every .Xr of a line"
ok "the installed pages pass mandoc -Tlint" sh -c 'cd "$1" && mandoc -Tlint -Wwarning man*/*' - "$prefix/share/man"

# ---- The installed tree alone ----
# PATH as cron gives it, after the installed bin: no tool of the build,
# nor WA_BIN or WA_CYCLE_MK, is seen.
installed() { env -u WA_BIN -u WA_CYCLE_MK PATH="$prefix/bin:/usr/bin:/bin" "$@"; }
for p in $progs; do
	installed "$p" -h >"$tmp/help" 2>&1 || ok "$p -h exits 0" false
done
like "$(installed sh -c 'command -v wa-fetch')" "^$prefix/bin/wa-fetch\$" \
	"the tools on PATH are the installed ones"

web_start
resolve=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')
st=$tmp/st
mkdir "$st" && cp "$TESTDATA/web/seeds.txt" "$st/seeds.tsv"
# wa-cycle(1), EXAMPLES: "Crawl a test web served on loopback addresses".
(cd "$tmp" && installed wa-cycle --now 1800000000 st WAIT=0 ALLOW_PRIVATE=1 \
	RESOLVE="$resolve" SCOPE='^http://[a-z]+[.]test:8080/') >"$tmp/cycle.out" 2>&1
is "$?" 0 "the installed wa-cycle runs the loopback example of its page"
sed 's/^/#   /' "$tmp/cycle.out" | head -20
is "$(readlink "$st/current")" cycle-1 "cycle 1 is complete"
sort -u "$st/cycle-1/links.tsv" >"$tmp/links"
same_file "$tmp/links" "$TESTDATA/web/expected/links.tsv" \
	"its links are the hand-written ones of the test web"
ok "it wrote its report" test -s "$st/cycle-1/report.txt"

# wa-plot(1), EXAMPLES: the paths of the plots, one a line.
(cd "$tmp" && installed wa-plot st) >"$tmp/plots" 2>"$tmp/plot.err"
is "$?" 0 "the installed wa-plot draws the cycle"
is "$(sed 's|.*/||' "$tmp/plots" | sort | tr '\n' ' ')" \
	"convergence.png fetch-rate.png importance.png refresh.png " "four plots"
for f in $(cat "$tmp/plots"); do
	is "$(head -c 4 "$f" | od -An -c | tr -d ' ')" '211PNG' "${f##*/} is a PNG"
done

# wa-cycle(1), EXAMPLES: the steps with make alone, cycle.mk where make
# install put it.
mkdir "$tmp/st2" && cp "$st/seeds.tsv" "$tmp/st2/seeds.tsv"
ok "the installed cycle.mk runs up to the graph with make alone" \
	installed make -s -f "$prefix/share/wa/cycle.mk" STATE="$tmp/st2" NOW=1800000000 \
	WAIT=0 ALLOW_PRIVATE=1 RESOLVE="$resolve" SCOPE='^http://[a-z]+[.]test:8080/' graph
sort -u "$tmp/st2/cycle-1/links.tsv" >"$tmp/links2"
same_file "$tmp/links2" "$tmp/links" "to the links of wa-cycle"

# ---- wa-dist over two loopback hosts ----
. "$T_DIR/sshd-lib.sh"
dist_ready=yes
for p in parallel rsync; do command -v $p >/dev/null || dist_ready="needs $p"; done
[ "$dist_ready" = yes ] && { sshd_usable || dist_ready=$SSHD_WHY; }
if [ "$dist_ready" = yes ]; then
	export PARALLEL_HOME=$tmp/parallel
	mkdir -p "$PARALLEL_HOME" && : >"$PARALLEL_HOME/will-cite"
	sshd_start 2
	printf '%s\n' "$SSH_LOGINS" >"$tmp/d-hosts"
	mkdir "$tmp/d" && cp "$st/seeds.tsv" "$tmp/d/seeds.tsv"
	installed wa-dist --now 1800000000 --sshloginfile "$tmp/d-hosts" \
		--workdir "$tmp/remote" --remote-bin "$prefix/bin" "$tmp/d" WAIT=0 \
		ALLOW_PRIVATE=1 RESOLVE="$resolve" SCOPE='^http://[a-z]+[.]test:8080/' \
		'RANK_FLAGS=-e 1e-6' >"$tmp/dist.out" 2>&1
	is "$?" 0 "the installed wa-dist runs a cycle over two hosts"
	sed 's/^/#   /' "$tmp/dist.out" | head -20
	is "$(readlink "$tmp/d/current")" cycle-1 "its cycle 1 is complete"
	sort -u "$tmp/d/cycle-1/links.tsv" >"$tmp/d-links"
	same_file "$tmp/d-links" "$TESTDATA/web/expected/links.tsv" "with the same links"
	sshd_stop
else
	echo "# wa-dist not run: $dist_ready"
fi
done_testing
