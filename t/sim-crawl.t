#!/bin/sh
# scripts/sim-crawl: the crawl simulator (Castillo, "Effective Web
# Crawling", 2004, ch. 6).  Its trace is checked against the politeness
# model by an independent reader (gap w between two requests to a site, one
# connection per site holding it for at most c pages, at most r requests at
# once), its runs against themselves (same seed, same bytes), and its curves
# against what PageRank guarantees (the ranks of all pages sum to 1; the
# oracle order leads).
. "$(dirname "$0")/lib.sh"
under_valgrind && skip_all "the simulation's figures are the same under valgrind"
needs_python numpy
sim=$ROOT/scripts/sim-crawl
export WA_BIN

exits 0 "-h" "$sim" -h
for o in -r -w -c --seed --pages --links --strategies --out --quick --trace -B --batch; do
	like "$(cat "$tmp/stdout")" "(^| )$o[ ,]" "-h lists $o"
done
like "$(cat "$tmp/stdout")" "default: 64" "-h gives the defaults"
exits 2 "an unknown strategy is a usage error" "$sim" --strategies optimal,bogus
exits 2 "-r 0 is a usage error" "$sim" -r 0
exits 2 "a non-numeric --pages is a usage error" "$sim" --pages many
exits 2 "an unknown option is a usage error" "$sim" --frobnicate
exits 1 "a missing --links file is a runtime error" "$sim" -q --links "$tmp/none.tsv" --out "$tmp/x"

run="-q --strategies optimal,depth,length,batch,partial,random --pages 600 -r 4 -c 3 -w 2 --batch 60 --seed 7 --trace"
ok "a run on a generated graph" "$sim" $run --out "$tmp/a"
ok "the same run again" "$sim" $run --out "$tmp/b"
for f in summary.tsv trace.tsv curve-optimal.tsv curve-batch.tsv curve-partial.tsv curve-random.tsv; do
	same_file "$tmp/a/$f" "$tmp/b/$f" "same seed, same $f"
done
ok "another seed" "$sim" -q --pages 600 -r 4 -c 3 -w 2 --batch 60 --seed 8 --out "$tmp/c"
if cmp -s "$tmp/a/curve-random.tsv" "$tmp/c/curve-random.tsv"; then
	t_result 1 "another seed, another curve"
else
	t_result 0 "another seed, another curve"
fi

# The politeness of every strategy's requests, read back from the trace.
check_trace() {	# TRACE R C W
	"$PY" - "$@" <<'PY'
import sys
from collections import defaultdict
path, r, c, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
req = defaultdict(list)
for line in open(path):
    strat, conn, site, start, end, url, nth = line.rstrip("\n").split("\t")
    req[strat].append((float(start), float(end), int(conn), site, url, int(nth)))
bad = []
for strat, rs in req.items():
    urls = [x[4] for x in rs]
    if len(set(urls)) != len(urls):
        bad.append("%s: a page fetched twice" % strat)
    if any(not 0 <= x[2] < r for x in rs):
        bad.append("%s: a connection id out of range" % strat)
    events = sorted([(x[0], 1) for x in rs] + [(x[1], -1) for x in rs],
                    key=lambda e: (e[0], e[1]))
    now = peak = 0
    for _, d in events:
        now += d
        peak = max(peak, now)
    if peak > r:
        bad.append("%s: %d requests at once" % (strat, peak))
    bysite = defaultdict(list)
    for x in rs:
        bysite[x[3]].append(x)
    for site, xs in bysite.items():
        xs.sort()
        if xs[0][5] != 1:
            bad.append("%s: site %s: a visit without its start" % (strat, site))
        for a, b in zip(xs, xs[1:]):
            if b[0] < a[1] + w - 1e-6:
                bad.append("%s: site %s: %.6f after %.6f" % (strat, site, b[0], a[1]))
            # A visit's pages follow each other on its connection.
            if b[5] != 1 and (b[2] != a[2] or b[5] != a[5] + 1):
                bad.append("%s: site %s: another connection in a visit" % (strat, site))
        if any(x[5] > c for x in xs):
            bad.append("%s: site %s: more than c pages on one connection" % (strat, site))
print("\n".join(bad[:5]) if bad else "polite", ",".join(sorted(req)))
PY
}
is "$(check_trace "$tmp/a/trace.tsv" 4 3 2)" "polite batch,depth,length,optimal,partial,random" \
	"every strategy's requests: gap w, one connection a site, c pages, r at once"
# The reader finds a request moved closer to the one before it on its site.
awk -F '\t' 'BEGIN { OFS = "\t" }
	$1 == "depth" && seen[$3]++ == 1 && !done { $4 = $4 - 1; done = 1 }
	$1 == "random" && $7 == 2 && !moved { $2 = ($2 + 1) % 4; moved = 1 } { print }' \
	"$tmp/a/trace.tsv" >"$tmp/bad-trace.tsv"
like "$(check_trace "$tmp/bad-trace.tsv" 4 3 2)" "^depth: site [0-9]+: [0-9.]+ after" "the reader catches an impolite request"
like "$(check_trace "$tmp/bad-trace.tsv" 4 3 2)" "random: site [0-9]+: another connection" "the reader catches two connections to a site"
like "$(check_trace "$tmp/a/trace.tsv" 4 2 2)" "more than c pages on one connection" "the reader catches c exceeded"
like "$(check_trace "$tmp/a/trace.tsv" 1 3 2)" "out of range|at once" "the reader catches r exceeded"

# Many connections, few sites: the waiting sites' heap keeps every rule
# with r = 256, and a connection never stays idle while a site may be
# visited: a visit starts at time 0, when its site's delay ends, or when
# another request ends (a connection freed, or a page's links found).
big="-q --strategies optimal,length,partial,random --pages 3000 -r 256 -c 2 -w 3 --batch 300 --seed 5 --trace"
ok "r = 256 on 3000 pages" "$sim" $big --out "$tmp/r256"
is "$(check_trace "$tmp/r256/trace.tsv" 256 2 3)" "polite length,optimal,partial,random" \
	"r = 256: gap w, one connection a site, c pages, r at once"
work_conserving() {	# TRACE W
	"$PY" - "$@" <<'PY'
import sys
from collections import defaultdict
path, w = sys.argv[1], float(sys.argv[2])
req = defaultdict(list)
for line in open(path):
    strat, conn, site, start, end, url, nth = line.rstrip("\n").split("\t")
    req[strat].append((float(start), float(end), site, int(nth)))
bad = []
for strat, rs in req.items():
    ends = set(round(x[1], 6) for x in rs)
    last = {}
    for x in sorted(rs):
        b = round(x[0], 6)
        if x[3] == 1 and b != 0 and b not in ends and \
                (x[2] not in last or abs(b - (last[x[2]] + w)) > 2e-6):
            bad.append("%s: site %s: a visit starts at %.6f for no reason" % (strat, x[2], b))
        last[x[2]] = x[1]
print("\n".join(bad[:3]) if bad else "no idle wait")
PY
}
is "$(work_conserving "$tmp/r256/trace.tsv" 3)" "no idle wait" "r = 256: no connection waits while a site is free"
awk -F '\t' 'BEGIN { OFS = "\t" } NR == 40 { $4 += 0.5; $5 += 0.5 } { print }' \
	"$tmp/r256/trace.tsv" >"$tmp/late.tsv"
like "$(work_conserving "$tmp/late.tsv" 3)" "for no reason" "the reader catches a late visit"
is "$(tail -n 1 "$tmp/r256/curve-length.tsv" | cut -f 1,2,4)" "3000	1.000000	1.000000" \
	"r = 256: every page fetched"
# More connections than sites: the requests at once never exceed the sites.
# Three home pages without in-links, the seeds.
printf '%s\t%s\n' http://a.test/ http://a.test/1 http://a.test/1 http://a.test/2 \
	http://b.test/ http://b.test/1 http://c.test/ http://c.test/1 http://c.test/ http://c.test/2 \
	http://a.test/ http://c.test/2 >"$tmp/three.tsv"
ok "r = 256 on three sites" "$sim" -q --links "$tmp/three.tsv" -r 256 -w 1 --trace \
	--strategies depth,length,optimal,random --out "$tmp/three"
is "$(check_trace "$tmp/three/trace.tsv" 3 1 1)" "polite depth,length,optimal,random" \
	"r = 256, three sites: at most three requests at once, politely"
is "$(awk -F '\t' '{ n[$1]++ } END { for (s in n) print s, n[s] }' "$tmp/three/trace.tsv" | sort | tr '\n' ' ')" \
	"depth 8 length 8 optimal 8 random 8 " "r = 256, three sites: each strategy fetches the 8 pages"
like "$(check_trace "$tmp/three/trace.tsv" 2 1 1)" "depth: 3 requests at once" \
	"and three sites are crawled at once"

# Every page is reachable in a generated graph: each curve ends at all the
# pages and the whole PageRank, 1.
for s in optimal depth length batch partial random; do
	is "$(tail -n 1 "$tmp/a/curve-$s.tsv" | cut -f 1,2,4)" "600	1.000000	1.000000" \
		"$s: the curve ends at 600 pages and cumulative PageRank 1"
done
is "$(awk -F '\t' '$1 == "optimal" { n++ } END { print n }' "$tmp/a/trace.tsv")" 600 \
	"the trace has one request per page"
awk -F '\t' '$1 == "optimal" { o10 = $3; o50 = $5 } $1 == "random" { r10 = $3; r50 = $5 }
	END { exit !(o10 > r10 && o50 > r50) }' "$tmp/a/summary.tsv"
t_result $? "optimal above random at 10% and 50% of the pages"
awk -F '\t' 'NR > 1 && !($4 >= prev - 1e-9) { exit 1 } NR > 1 { prev = $4 }' "$tmp/a/curve-optimal.tsv"
t_result $? "cumulative PageRank never decreases"
awk -F '\t' 'NR > 2 && !($3 >= prev) { exit 1 } NR > 1 { prev = $3 }' "$tmp/a/curve-depth.tsv"
t_result $? "the simulated time never decreases"

# OPIC Greedy runs the real wa-opic, when it is built.
if [ -x "$WA_BIN/wa-opic" ]; then
	ok "opic: a run with wa-opic" "$sim" $run --strategies opic,random --opic-every 20 --out "$tmp/o"
	is "$(check_trace "$tmp/o/trace.tsv" 4 3 2)" "polite opic,random" "opic: polite"
	is "$(tail -n 1 "$tmp/o/curve-opic.tsv" | cut -f 1,2,4)" "600	1.000000	1.000000" \
		"opic: the curve ends at 600 pages and cumulative PageRank 1"
	same_file "$tmp/o/curve-random.tsv" "$tmp/a/curve-random.tsv" \
		"the strategies do not change each other's runs"
fi

# A links TSV: the test web's links; seeds are the pages without in-links.
ok "a run on testdata's links" "$sim" -q --links "$ROOT/testdata/web/expected/links.tsv" \
	-r 2 -w 1 --strategies optimal,depth,batch --trace --out "$tmp/l"
cut -f 6 "$tmp/l/trace.tsv" | sort -u >"$tmp/fetched"
cut -f 1,2 "$ROOT/testdata/web/expected/links.tsv" | tr '\t' '\n' | sort -u >"$tmp/urls"
is "$(comm -23 "$tmp/fetched" "$tmp/urls" | wc -l)" 0 "only URLs of the links file are fetched"
is "$(check_trace "$tmp/l/trace.tsv" 2 1 1)" "polite batch,depth,optimal" "and politely"
printf 'http://a.test/\n' >"$tmp/short.tsv"
exits 1 "a line without a tab is an error" "$sim" -q --links "$tmp/short.tsv" --out "$tmp/s"
like "$(cat "$tmp/stderr")" "short.tsv:1:" "naming file and line"

done_testing
