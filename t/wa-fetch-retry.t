#!/bin/sh
# wa-fetch --retries: a transient failure (a 503, a 500, a connection reset,
# a 503 with Retry-After) is tried again in the same run after a wait that
# doubles, the site's delay kept and its other URLs served meanwhile; the
# row is the last attempt's with the attempts and the retried statuses, the
# WARC holds the last attempt only; robots.txt is not retried.  The server
# below counts and dates every request; the waits are read from its dates.
# Also the progress lines of a log: the time, the rate per minute, a time
# left that counts the politeness waits, and the final line.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/wa-fetch-lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio

# Paths by how they fail; each host keeps its own counts.
cat >"$tmp/server.py" <<'EOF'
import http.server, socket, socketserver, struct, sys, threading, time

counts = {}
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def reset(self):
        # Half a response, then a TCP reset (SO_LINGER 0).
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nhalf")
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def do_GET(self):
        host = self.headers.get("Host", "").split(":")[0]
        with lock:
            n = counts[host + self.path] = counts.get(host + self.path, 0) + 1
            print("req %s %s %d %.3f" % (host, self.path, n, time.time()), flush=True)
        if self.path == "/robots.txt":
            if host.startswith("robots-503"):
                return self.answer(503, b"busy\n")
            return self.answer(404, b"none\n")
        if self.path == "/flaky" and n <= 2:
            return self.answer(503, b"try again\n")
        if self.path == "/busy" and n == 1:
            return self.answer(503, b"later\n", [("Retry-After", "2")])
        if self.path == "/broken":
            return self.answer(500, b"broken\n")
        if self.path == "/reset" and n == 1:
            return self.reset()
        self.answer(200, b"<html><body>%s</body></html>\n" % self.path.encode())

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

server = Server((sys.argv[1], int(sys.argv[2])), Handler)
threading.Timer(300, server.shutdown).start()
print("ready", flush=True)
server.serve_forever()
EOF
a=$(t_addr 1)
python3 "$tmp/server.py" "$a" 8080 >"$tmp/server.out" 2>"$tmp/server.err" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; t_cleanup' EXIT
i=0
until grep -q '^ready' "$tmp/server.out" 2>/dev/null; do
	[ $i -lt 100 ] && kill -0 $server_pid 2>/dev/null ||
		{ echo "Bail out! the server did not start: $(cat "$tmp/server.err")"; exit 1; }
	sleep 0.1
	i=$((i + 1))
done
R="--allow-private"
for h in a b c d robots-503 e f g; do R="$R --resolve $h.test:8080:$a"; done

# The server's requests of HOST PATH: the count, and the times in ms.
requests() { awk -v h="$1" -v p="$2" '$2 == h && $3 == p' "$tmp/server.out" | wc -l; }
times_ms() { awk -v h="$1" -v p="${2:-}" '$2 == h && ($3 == p || p == "") && $3 != "/robots.txt" \
	{ printf "%.0f\n", $5 * 1000 }' "$tmp/server.out"; }
gaps_ms() { times_ms "$1" "${2:-}" | awk 'NR > 1 { printf "%d ", $1 - prev } { prev = $1 }'; }
# Whether each gap of the list is at least the one asked, less 10 ms for
# the server's clock reading: "1000 2000" of "1003 2001".
at_least() { echo "$1" | awk -v want="$2" '{ n = split(want, w, " ");
	for (i = 1; i <= n; i++) if ($i < w[i] - 10) exit 1; exit NF != n }'; }

U=http://a.test:8080
printf '%s\n' $U/flaky $U/other1 $U/other2 http://b.test:8080/reset \
	http://c.test:8080/broken http://d.test:8080/busy http://robots-503.test:8080/x >"$tmp/urls"
ok "a run of 7 URLs with transient failures, -w 1, default retries" sh -c \
	"WA_PROGRESS_INTERVAL=0.5 wa-fetch -v $R -w 1 -o $tmp/crawl.warc.gz $tmp/urls >$tmp/log"
cp "$tmp/stderr" "$tmp/run.err"

is "$(requests a.test /flaky) $(requests b.test /reset) $(requests c.test /broken) $(requests d.test /busy)" \
	"3 2 3 2" "the server saw 3 requests of /flaky, 2 of /reset, 3 of /broken (1 + 2 retries), 2 of /busy"
is "$(requests a.test /other1) $(requests a.test /other2)" "1 1" "an URL that answers is asked once"
is "$(row $U/flaky | cut -f 3,12,13)" "200	3	503,503" "503 twice then 200: the row is the 200, 3 attempts, the 503s"
like "$(row http://b.test:8080/reset | cut -f 3,12,13)" "^200	2	(network|partial)$" \
	"a connection reset: retried once, its status listed"
is "$(row http://c.test:8080/broken | cut -f 3,12,13)" "500	3	500,500" "a URL that always fails: 3 attempts, the last one's 500 logged"
is "$(row http://d.test:8080/busy | cut -f 3,12,13)" "200	2	503" "a 503 with Retry-After: 2 is retried"
is "$(awk -F '\t' '{ print NF }' "$tmp/log" | sort | uniq -c | tr -s ' ')" " 3 11
 4 13" "the rows of URLs not retried keep 11 columns, the others have 13"
is "$(row http://robots-503.test:8080/x | cut -f 3,11)" "robots	disallow" \
	"robots.txt answering 503 disallows its site (RFC 9309)"
is "$(requests robots-503.test /robots.txt)" 1 "and is not retried"
last=$(times_ms a.test /flaky | tail -1)
is "$(row $U/flaky | cut -f 2)" "$((last / 1000))" "the time column is the last attempt's"

# The waits: a retry waits the site's delay (1 s), the next twice that; a
# Retry-After of 2 s holds the retry 2 s; every request to a site at least
# -w after the one before.
ok "/flaky: 1 s, then 2 s between attempts (got $(gaps_ms a.test /flaky))" at_least "$(gaps_ms a.test /flaky)" "1000 2000"
ok "/broken: 1 s, then 2 s (got $(gaps_ms c.test /broken))" at_least "$(gaps_ms c.test /broken)" "1000 2000"
ok "/busy: the Retry-After of 2 s (got $(gaps_ms d.test /busy))" at_least "$(gaps_ms d.test /busy)" "2000"
ok "site a: every request at least 1 s after the one before (got $(gaps_ms a.test))" \
	at_least "$(gaps_ms a.test)" "1000 1000 1000 1000"
is "$(awk '$2 == "a.test" && $3 != "/robots.txt" { printf "%s ", $3 }' "$tmp/server.out")" \
	"/flaky /other1 /flaky /other2 /flaky " "while /flaky waits for its retries, its site serves the others"

like "$(cat "$tmp/run.err")" "$U/flaky: retry 1 of 2 in 1s" "-v tells each retry and its wait"
like "$(cat "$tmp/run.err")" "$U/flaky: retry 2 of 2 in 2s" "  the second waits twice as long"
like "$(cat "$tmp/run.err")" "d.test:8080/busy: retry 1 of 2 in 2s" "  a Retry-After sets the wait"

# The WARC: the last attempt of each URL, none of the attempts before.
warcio_tsv "$tmp/crawl.warc.gz" warc-type warc-target-uri http:status warc-payload-digest |
	awk -F '\t' '$1 == "response" && $2 !~ /robots.txt$/ { print $2, $3, $4 }' | sort >"$tmp/responses"
printf '<html><body>/flaky</body></html>\n' >"$tmp/flaky.html"
printf 'broken\n' >"$tmp/broken.html"
is "$(cut -d ' ' -f 1,2 "$tmp/responses" | tr '\n' ' ')" \
	"$U/flaky 200 $U/other1 200 $U/other2 200 http://b.test:8080/reset 200 http://c.test:8080/broken 500 http://d.test:8080/busy 200 " \
	"one response record per URL, the last attempt's"
is "$(grep -c . "$tmp/responses") $(warcio_tsv "$tmp/crawl.warc.gz" warc-type | grep -c request)" "6 11" \
	"no record of the attempts retried (6 pages and 5 robots.txt, requests as many)"
is "$(grep "$U/flaky " "$tmp/responses" | cut -d ' ' -f 3)" "$(sha1_b32 "$tmp/flaky.html")" \
	"/flaky's record holds the page of its 200"
is "$(grep "broken" "$tmp/responses" | cut -d ' ' -f 3)" "$(sha1_b32 "$tmp/broken.html")" \
	"/broken's record holds its last 500"

# The progress of the run in a log: the time first, the final line says
# what was done.
iso='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z wa-fetch: '
is "$(grep -c ' pages, ' "$tmp/run.err")" "$(grep -Ec "$iso[0-9]+/7 pages, " "$tmp/run.err")" \
	"every progress line of a log starts with the time"
like "$(grep ' pages, ' "$tmp/run.err" | tail -1)" "${iso}7/7 pages, [0-9]+/(s|min), 0:0[0-9]; 5 sites, 6 retries$" \
	"the final line: the sites and the retries, not the active sites"
like "$(cat "$tmp/run.err")" "[0-9]+ retr(y|ies) waiting" "the lines before count the retries waiting"

# --retries 0: every failure final; --retries 1: one retry.
printf '%s\n' http://e.test:8080/flaky http://e.test:8080/broken >"$tmp/urls0"
ok "--retries 0" sh -c "wa-fetch -q $R -w 0 --retries 0 $tmp/urls0 >$tmp/log0"
is "$(cut -f 1,3 "$tmp/log0" | sort | tr '\t\n' '  ')" "http://e.test:8080/broken 500 http://e.test:8080/flaky 503 " \
	"  logs the first failure"
is "$(awk -F '\t' '{ print NF }' "$tmp/log0" | sort -u) $(requests e.test /flaky) $(requests e.test /broken)" "11 1 1" \
	"  in rows of 11 columns, after one request each"
echo http://f.test:8080/broken | wa-fetch -q $R -w 0 --retries 1 >"$tmp/log1"
is "$(cut -f 3,12,13 "$tmp/log1") $(requests f.test /broken)" "500	2	500 2" "--retries 1: two attempts"
exits 2 "--retries 11 is refused" wa-fetch --retries 11 /dev/null

# A log with retried rows is read back: -P, --resume.
ok "-P reads a log of 13 columns" sh -c "echo $U/flaky | wa-fetch -q $R -w 0 -P $tmp/log >$tmp/logP"
is "$(cut -f 3 "$tmp/logP")" 200 "  and fetches with it"
ok "--resume reads it" sh -c "wa-fetch -q $R -w 0 --resume $tmp/log $tmp/urls >$tmp/logR"
is "$(wc -c <"$tmp/logR")" 0 "  and finds every URL done"

# The time left counts the politeness waits: 20 sites of one page each are
# done at once, but 5 pages of one site at -w 2 take 10 s (robots.txt, then
# a page every 2 s), whatever the rate of the first 20.  At every line the
# time left is at least the time the run still took, less 2 s for the
# times' whole seconds.
R20=$R
: >"$tmp/urls25"
i=1; while [ $i -le 20 ]; do
	R20="$R20 --resolve h$i.test:8080:$a"
	echo "http://h$i.test:8080/x" >>"$tmp/urls25"
	i=$((i + 1))
done
printf 'http://g.test:8080/p%s\n' 1 2 3 4 5 >>"$tmp/urls25"
WA_PROGRESS_INTERVAL=0.4 wa-fetch $R20 -w 2 "$tmp/urls25" >/dev/null 2>"$tmp/slow.err"
to_s() { date -u -d "$1" +%s; }
end=$(to_s "$(tail -1 "$tmp/slow.err" | cut -d ' ' -f 1)")
short=$(grep ' left' "$tmp/slow.err" | while read -r t rest; do
	left=$(echo "$rest" | sed 's/.* \([0-9]*\):\([0-9]*\) left.*/\1 \2/' | awk '{ print $1 * 60 + $2 }')
	[ "$left" -ge $((end - $(to_s "$t") - 2)) ] || echo "$t $rest"
done)
is "$short" "" "no line says less time left than the run still took"
ok "there were such lines after the 20 quick pages" grep -q '^[^ ]* wa-fetch: 2[1-4]/25 pages.* left' "$tmp/slow.err"
like "$(grep ' 2[1-4]/25 pages' "$tmp/slow.err" | tail -1)" "; 1 site active, [0-9]+ idle connections$" \
	"one site active, in the singular"
like "$(tail -1 "$tmp/slow.err")" "${iso}25/25 pages, [0-9]+/s, 0:1[01]; 21 sites$" \
	"the final line: 25 pages from 21 sites in 10 or 11 s"

# One site: 3 pages at -w 2 take 6 s, a rate under 1/s.
printf 'http://g.test:8080/q%s\n' 1 2 3 >"$tmp/urls3"
WA_PROGRESS_INTERVAL=0.4 wa-fetch $R -w 2 "$tmp/urls3" >/dev/null 2>"$tmp/one.err"
like "$(grep ' [12]/3 pages' "$tmp/one.err" | head -1)" " [0-9]+/min, " "a rate under 1/s is per minute"
is "$(grep -c '0/s' "$tmp/one.err")" 0 "never 0/s"
like "$(tail -1 "$tmp/one.err")" "${iso}3/3 pages, [0-9]+/min, 0:0[67]; 1 site$" \
	"the final line: 3 pages from 1 site in 6 or 7 s"

done_testing
