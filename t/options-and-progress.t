#!/bin/sh
# Durations, sizes, times and numbers on the command line; the progress
# line on a terminal, in a log, and silenced by -q.
. "$(dirname "$0")/lib.sh"
prog=$WA_UNIT/test-progress

unit test-opt

# A plain line starts with the UTC time in ISO 8601.
iso='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
before=$(date +%s)
WA_PROGRESS_INTERVAL=0.2s "$prog" -t 60 10000 >/dev/null 2>"$tmp/log"
is $? 0 "a run with progress ends well"
after=$(date +%s)
n=$(wc -l <"$tmp/log")
ok "a log gets plain lines as the run goes (got $n in 0.6 s at 0.2 s)" test "$n" -ge 2
like "$(head -1 "$tmp/log")" "^$iso "'test-progress: [0-9]+/60 items, [0-9]+/s, [0-9.]+%, 0:0[0-9] left; square [0-9]+$' \
	"a plain line: time, done/total, rate, percent, time left, the tool's note"
like "$(tail -1 "$tmp/log")" "^$iso "'test-progress: 60/60 items, [0-9]+/s, 0:0[0-9]; square 3600$' \
	"the last line: final count and elapsed time"
stamps=$(cut -d ' ' -f 1 "$tmp/log" | while read -r t; do date -u -d "$t" +%s; done | sort -u)
ok "the times are the clock's during the run (in $before..$after)" \
	test "$(echo "$stamps" | head -1)" -ge "$before" -a "$(echo "$stamps" | tail -1)" -le "$after"
ok "no terminal codes in a log" sh -c "! grep -q \"$(printf '\033')\" '$tmp/log'"

WA_PROGRESS_INTERVAL=0.2s "$prog" 30 10000 >/dev/null 2>"$tmp/log"
like "$(head -1 "$tmp/log")" "^$iso "'test-progress: [0-9]+ items, [0-9]+/s; square [0-9]+$' \
	"without a total: count and rate only"

# Two items of 1.5 s each: under one a second, the rate is per minute.
WA_PROGRESS_INTERVAL=0.3s "$prog" -t 2 1500000 >/dev/null 2>"$tmp/log"
like "$(grep ' 1/2 items' "$tmp/log" | head -1)" "^$iso "'test-progress: 1/2 items, [2-4][0-9]/min, 50.0%, 0:0[0-9] left$' \
	"a slow run: 1 item in 1.5 to 3 s is 20 to 40 a minute"
like "$(tail -1 "$tmp/log")" "^$iso "'test-progress: 2/2 items, [34][0-9]/min, 0:03$' \
	"and so is the last line: 2 items in 3 s"
is "$(grep -c '/s' "$tmp/log")" 0 "no rate per second below one a second, never 0/s"

WA_PROGRESS_INTERVAL=0.2s "$prog" -q -t 60 10000 >/dev/null 2>"$tmp/log"
is "$(wc -c <"$tmp/log")" 0 "-q silences progress"

"$prog" -t 20 1000 >/dev/null 2>"$tmp/log"
is "$(wc -c <"$tmp/log")" 0 "a short run in a log prints nothing"

# Standard error on a pseudo-terminal of our own (script(1) depends on its
# standard input, which CI does not have).
WA_PROGRESS_INTERVAL=0s /usr/bin/python3 -c '
import os, subprocess, sys
master, slave = os.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        data = os.read(master, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
child.wait()
sys.stdout.buffer.write(out)
' "$prog" -t 40 10000 >"$tmp/tty" 2>&1
like "$(od -c "$tmp/tty" | tr -s ' ' | head -3)" '\\r 033 \[ K' "on a terminal the line is redrawn in place"
like "$(tr '\r' '\n' <"$tmp/tty" | tail -2 | head -1)" '^.\[Ktest-progress: 40/40 items, [0-9]+/s, 0:0[0-9]; square 1600' \
	"and ends with the final figures, without the time a log has"

WA_PROGRESS_INTERVAL=soon "$prog" 1 0 2>"$tmp/err"
is $? 1 "a bad WA_PROGRESS_INTERVAL is an error"
is "$(cat "$tmp/err")" "test-progress: WA_PROGRESS_INTERVAL: bad duration 'soon'" "and says so"

done_testing
