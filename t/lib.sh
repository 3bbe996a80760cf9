# The shared test library: sourced by every t/*.t, it emits TAP.
#
#   ok MSG CMD...          passes when CMD exits 0
#   is GOT WANT MSG        string equality, shows both on failure (and returns 1)
#   like GOT REGEX MSG     grep -E match
#   exits CODE MSG CMD...  CMD exits with CODE; its stderr is left in $tmp/stderr
#   same_file GOT WANT MSG byte equality, shows a diff on failure
#   tsv_near GOT WANT TOL MSG   TSV equality, numbers within TOL (absolute)
#   unit NAME              runs the C unit test NAME (its TAP is folded in)
#   nginx_start NAME ADDR PORT ROOT [CONF]   serves ROOT on ADDR:PORT (scripts/nginx-site);
#                          its log $tmp/nginx-NAME/logs/access.log has lines
#                          MSEC CONNECTION REQUESTS "REQUEST" STATUS BYTES ADDR
#   nginx_stop NAME        (all servers also stop when the test ends)
#   web_start              serves testdata/web: WEB_SITES, WEB_RESOLVE (below)
#   fault_start            starts t/fault-server.py: FAULT_RESOLVE... (below)
#   under_valgrind         true under make check VALGRIND=1
#   unwrapped TOOL         the path of TOOL itself, without its valgrind
#                          wrapper: for the steps of a search, whose result
#                          the test then runs as it runs everything else
#   under_asan             true under make check SANITIZE=1 (the tools carry
#                          ASan, whose shadow memory makes RSS and address
#                          space figures meaningless)
#   offline CMD...         CMD in a network namespace with no interface up
#                          (unshare -n): a name lookup fails at once, no
#                          query leaves the machine; `offline true` fails
#                          where that cannot be done (not root)
#   skip_all REASON / done_testing
#
# Tools run from $WA_BIN (bin/ by default; make check SANITIZE=1 and
# VALGRIND=1 point it elsewhere).  Every test gets a fresh directory $tmp.

set -u
export LC_ALL=C TZ=UTC
# Tests talk to loopback servers only, never through a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
T_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$T_DIR")
WA_BIN=$(cd "${WA_BIN:-$ROOT/bin}" 2>/dev/null && pwd) || WA_BIN=$ROOT/bin
WA_UNIT=$(cd "${WA_UNIT:-$ROOT/build/opt/t}" 2>/dev/null && pwd) || WA_UNIT=$ROOT/build/opt/t
TESTDATA=$ROOT/testdata
PATH=$WA_BIN:$ROOT/src/cycle:$ROOT/scripts:$PATH
export PATH WA_BIN ROOT TESTDATA

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wa-test.XXXXXX")
t_count=0
t_failed=0
t_servers=

t_cleanup() {
	for s in $t_servers; do nginx_stop "$s"; done
	fault_stop
	rm -rf "$tmp"
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

t_result() {	# PASSED MSG
	t_count=$((t_count + 1))
	if [ "$1" = 0 ]; then
		echo "ok $t_count - $2"
	else
		echo "not ok $t_count - $2"
		t_failed=$((t_failed + 1))
	fi
}

ok() {
	msg=$1; shift
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	t_result $rc "$msg"
	[ $rc = 0 ] || t_diag_command "$rc" "$@"
}

# A failure's details go to standard error, which prove shows without -v.
t_diag_command() {	# RC CMD...: the command of a failed check, its exit and stderr
	d_rc=$1; shift
	{ echo "#   command: $*"; echo "#   exit $d_rc"
	  sed 's/^/#   stderr: /' "$tmp/stderr" | head -20; } >&2
}

is() {
	if [ "$1" = "$2" ]; then t_result 0 "$3"; else
		t_result 1 "$3"
		printf '#   got:      %s\n#   expected: %s\n' "$1" "$2" >&2
		return 1
	fi
}

like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then t_result 0 "$3"; else
		t_result 1 "$3"
		printf '#   got:      %s\n#   expected to match: %s\n' "$1" "$2" >&2
	fi
}

exits() {
	want=$1 msg=$2; shift 2
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	is "$rc" "$want" "$msg"
	[ "$rc" = "$want" ] || t_diag_command "$rc" "$@"
}

same_file() {	# GOT WANT MSG; WANT - reads stdin
	if [ "$2" = - ]; then
		cat >"$tmp/want"
		set -- "$1" "$tmp/want" "$3"
	fi
	if cmp -s "$1" "$2"; then t_result 0 "$3"; else
		t_result 1 "$3"
		diff -u "$2" "$1" 2>&1 | head -30 | sed 's/^/#   /' >&2
	fi
}

tsv_near() {
	out=$(awk -F '\t' -v tol="$3" -v want="$2" '
		function num(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
		{
			if ((getline w < want) <= 0) { print "extra line " NR ": " $0; bad = 1; exit 1 }
			n = split(w, f, "\t")
			if (n != NF) { print "line " NR ": " NF " columns, expected " n; bad = 1; exit 1 }
			for (i = 1; i <= NF; i++) {
				if ($i == f[i]) continue
				if (num($i) && num(f[i])) {
					d = $i - f[i]; if (d < 0) d = -d
					if (d <= tol + 0) continue
				}
				print "line " NR " column " i ": " $i ", expected " f[i]; bad = 1; exit 1
			}
		}
		END { if (!bad && (getline w < want) > 0) { print "missing line: " w; exit 1 } }' "$1")
	t_result $? "$4"
	[ -z "$out" ] || echo "#   $out" >&2
}

unit() {
	exe=$WA_UNIT/$1
	[ -x "$exe" ] || { t_result 1 "unit test $1 is built"; return; }
	# Renumber the program's own TAP lines into ours; a missing or short
	# plan means it died on the way.
	"$exe" >"$tmp/unit.tap" 2>"$tmp/unit.err"
	rc=$?
	n=0 plan=
	while IFS= read -r line; do
		case $line in
		"ok "*) t_result 0 "${line#ok [0-9]* - }"; n=$((n + 1)) ;;
		"not ok "*) t_result 1 "${line#not ok [0-9]* - }"; n=$((n + 1)) ;;
		"1.."*) plan=${line#1..} ;;
		"#"*) echo "$line" ;;
		esac
	done <"$tmp/unit.tap"
	sed 's/^/#   stderr: /' "$tmp/unit.err" | head -20
	if [ "$plan" != "$n" ] || [ $rc -gt 1 ]; then
		t_result 1 "unit test $1 ran to its end (exit $rc, plan ${plan:-none}, ran $n)"
	fi
}

nginx_start() {	# NAME ADDR PORT ROOT [EXTRA_SERVER_CONF]
	nginx-site start "$tmp/nginx-$1" "$2" "$3" "$4" "${5:-}" 2>"$tmp/nginx-start.err" || {
		echo "Bail out! $(cat "$tmp/nginx-start.err")"
		exit 1
	}
	t_servers="$t_servers $1"
}

nginx_stop() { nginx-site stop "$tmp/nginx-$1"; }

# A loopback address of this test's own, so that tests running at once
# never share a listening socket: 127.B.C.N for a given N.
t_net=127.$(( ($$ >> 8) % 200 + 20 )).$(( $$ % 250 + 1 ))
t_addr() { echo "$t_net.$1"; }

# Whether the tools run under valgrind (make check VALGRIND=1 puts
# wrapper scripts in WA_BIN), where their time and memory are valgrind's.
under_valgrind() { grep -qs "^exec valgrind" "$WA_BIN/wa-url"; }
unwrapped() {
	if under_valgrind; then
		sed -n 's/.* "\([^"]*\)" "\$@"$/\1/p' "$WA_BIN/$1"
	else
		echo "$WA_BIN/$1"
	fi
}

under_asan() { grep -q __asan_init "$WA_BIN/wa-url" 2>/dev/null; }

offline() { unshare -n "$@"; }

skip_all() { echo "1..0 # SKIP $1"; trap - EXIT; rm -rf "$tmp"; exit 0; }

# The python3 of the verifiers and simulators (Debian's, with its packages).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# needs_python MODULE...: skips the file unless python3 imports them all.
needs_python() {
	"$PY" -c "import $(echo "$@" | sed 's/ /, /g')" 2>/dev/null ||
		skip_all "needs python3 with $* (scripts/deps install)"
}

# Skips the test without what the small web of scripts/docs-web is made of
# and served with: nginx, Python's html module, three documentation packages.
needs_small_docs_web() {
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] ||
		skip_all "needs nginx (scripts/deps install)"
	needs_python html
	for p in git-doc libxml2-doc debian-policy; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			skip_all "needs the Debian package $p (scripts/deps install)"
	done
}

# script_prog NAME: the path of the helper program scripts/NAME.c as built,
# from the suite's own build first (they are not wrapped under valgrind).
script_prog() {
	for d in "$(dirname "$WA_UNIT")/scripts" "$ROOT/build/opt/scripts" "$ROOT"/build/*/scripts; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

done_testing() {
	echo "1..$t_count"
	[ $t_failed = 0 ]
}

# The test web (testdata/web, described in its README): every site
# testdata/web/HOST/ is served by an nginx of its own on 127.B.C.(10+i),
# port 8080, with testdata/web/HOST.conf as extra server configuration.
# Pages name sites by host, so tools reach them through resolve entries:
#   web_start              starts every site; sets WEB_SITES (the hosts) and
#                          WEB_RESOLVE ("--resolve HOST:8080:ADDR" for each,
#                          for curl and wa-fetch: use it unquoted)
#   web_addr HOST          the address of a started site
#   web_log HOST           its access log
web_start() {
	WEB_SITES= WEB_RESOLVE=
	w_i=0
	for w_site in "$TESTDATA"/web/*.test; do
		[ -d "$w_site" ] || continue
		w_i=$((w_i + 1))
		w_host=${w_site##*/}
		w_conf=
		[ -f "$w_site.conf" ] && w_conf=$(cat "$w_site.conf")
		nginx_start "web-$w_host" "$(t_addr $((10 + w_i)))" 8080 "$w_site" "$w_conf"
		WEB_SITES="$WEB_SITES${WEB_SITES:+ }$w_host"
		WEB_RESOLVE="$WEB_RESOLVE${WEB_RESOLVE:+ }--resolve $w_host:8080:$(t_addr $((10 + w_i)))"
	done
	[ $w_i -gt 0 ] || { echo "Bail out! no sites in $TESTDATA/web"; exit 1; }
}

web_addr() {
	w_i=0
	for w_host in $WEB_SITES; do
		w_i=$((w_i + 1))
		[ "$w_host" = "$1" ] && { t_addr $((10 + w_i)); return 0; }
	done
	return 1
}

web_log() { echo "$tmp/nginx-web-$1/logs/access.log"; }

# The misbehaving server, t/fault-server.py (its header lists every host
# and path), on 127.B.C.9: plain HTTP on port 8080 and TLS on 8443 with a
# self-signed certificate made now for tls.test.
#   fault_start            starts it; sets FAULT_ADDR, FAULT_PORT (8080),
#                          FAULT_TLS_PORT (8443), FAULT_HOSTS, FAULT_RESOLVE
#                          (for every host, both ports) and FAULT_CERT (the
#                          certificate, a CA file for curl --cacert);
#                          $tmp/fault.out gets a line "req HOST PATH" for
#                          every request the server reads
#   fault_stop             stops it (the end of the test does too)
t_fault_pid=
fault_start() {
	FAULT_ADDR=$(t_addr 9) FAULT_PORT=8080 FAULT_TLS_PORT=8443
	FAULT_CERT=$tmp/fault-cert.pem
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tls.test \
	    -addext subjectAltName=DNS:tls.test -keyout "$tmp/fault-key.pem" \
	    -out "$FAULT_CERT" 2>"$tmp/fault-openssl.err" || {
		echo "Bail out! openssl could not make a certificate: $(cat "$tmp/fault-openssl.err")"
		exit 1
	}
	python3 "$T_DIR/fault-server.py" "$FAULT_ADDR" "$FAULT_PORT" \
	    --tls-port "$FAULT_TLS_PORT" --cert "$FAULT_CERT" \
	    --key "$tmp/fault-key.pem" >"$tmp/fault.out" 2>"$tmp/fault.err" &
	t_fault_pid=$!
	f_i=0
	until grep -q '^ready' "$tmp/fault.out" 2>/dev/null; do
		if [ $f_i -ge 100 ] || ! kill -0 $t_fault_pid 2>/dev/null; then
			echo "Bail out! the fault server did not start: $(cat "$tmp/fault.err")"
			exit 1
		fi
		sleep 0.1
		f_i=$((f_i + 1))
	done
	FAULT_HOSTS=$(sed -n 's/^hosts //p' "$tmp/fault.out")
	FAULT_RESOLVE=
	for f_h in $FAULT_HOSTS; do
		FAULT_RESOLVE="$FAULT_RESOLVE${FAULT_RESOLVE:+ }--resolve $f_h:$FAULT_PORT:$FAULT_ADDR --resolve $f_h:$FAULT_TLS_PORT:$FAULT_ADDR"
	done
}

fault_stop() {
	[ -n "$t_fault_pid" ] || return 0
	kill $t_fault_pid 2>/dev/null
	wait $t_fault_pid 2>/dev/null
	t_fault_pid=
}
