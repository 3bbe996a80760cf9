#!/bin/sh
# The shared test library itself: its comparisons pass what they should
# and fail what they should (run in a subshell, their TAP line captured),
# their diagnostics on standard error, where prove shows them.
. "$(dirname "$0")/lib.sh"
cd "$tmp"

printf 'http://a/\t0.25\t-\nhttp://b/\t0.75\tx\n' >want
printf 'http://a/\t0.2500000001\t-\nhttp://b/\t0.7499999999\tx\n' >near
printf 'http://a/\t0.26\t-\nhttp://b/\t0.75\tx\n' >far
printf 'http://a/\t0.25\t-\n' >short
printf 'http://a/\t0.25\t+\nhttp://b/\t0.75\tx\n' >text

verdict() { (t_count=0; "$@") 2>/dev/null | head -1 | cut -d' ' -f1-2; }
is "$(verdict tsv_near near want 1e-9 m)" "ok 1" "tsv_near: numbers within the tolerance pass"
is "$(verdict tsv_near far want 1e-9 m)" "not ok" "tsv_near: a number outside it fails"
like "$( (t_count=0; tsv_near far want 1e-9 m) 2>&1 >/dev/null | tail -1)" \
	"line 1 column 2: 0.26, expected 0.25" "tsv_near: and names the line and column, on stderr"
is "$(verdict tsv_near short want 1e-9 m)" "not ok" "tsv_near: a missing line fails"
is "$(verdict tsv_near want short 1e-9 m)" "not ok" "tsv_near: an extra line fails"
is "$(verdict tsv_near text want 1e-9 m)" "not ok" "tsv_near: text columns must be equal"
is "$(verdict same_file near want m)" "not ok" "same_file: different bytes fail"
is "$(verdict same_file want want m)" "ok 1" "same_file: equal bytes pass"
is "$(verdict exits 3 m sh -c 'exit 3')" "ok 1" "exits: the expected status passes"
is "$(verdict exits 0 m sh -c 'exit 3')" "not ok" "exits: another status fails"
like "$( (t_count=0; exits 0 m sh -c 'echo why >&2; exit 3') 2>&1 >/dev/null | tr '\n' ' ')" \
	"exit 3 .*stderr: why" "exits: a failure shows the status and the command's stderr, on stderr"

# unwrapped: the program itself, under valgrind as without it.
real=$(unwrapped wa-url)
like "$(head -c 4 "$real" | od -An -c | tr -d ' ')" '^177ELF$' "unwrapped: a program, not a wrapper"
is "$("$real" -h 2>&1 | head -1)" "$(wa-url -h 2>&1 | head -1)" "unwrapped: the same tool"

done_testing
