#!/bin/sh
# wa-schedule: the refresh plan against a hand-computed water-filling and
# against t/schedule-verify.py (numpy: the cap solved by bisection on the
# water level, not the tool's sorted fixed point) on generated states, with
# the cap binding and not, chi, categories, discovery shares, overrides and
# OPIC cash; the fetch list never longer than G*T, never a URL twice, sites
# interleaved; stdin and split inputs; bad input refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"

needs_python numpy
verify() { "$PY" "$T_DIR/schedule-verify.py" "$@"; }
tab=$(printf '\t')
NOW=1700000000

# A hand-computed plan, alpha 1: u = sqrt(w lambda) is 4, 1, 2 (S = 7), G 11,
# cap 1/T = 4/day.  L = 11/7 puts a over the cap; with a capped L = 7/3
# puts c over; with both capped L = 3 and b gets 3.  One clipping pass
# would leave b at 11/7 and waste bandwidth.
cat >"$tmp/hand" <<'EOF'
http://a.example/	html	0.5	4	4	1000000	-
http://b.example/	html	0.2	1	1	1000000	-
http://c.example/	html	0.3	1	4	1000000	-
EOF
exits 0 "the hand example" wa-schedule -G 11 -T 6h --alpha 1 --now 1025000 \
    --plan "$tmp/plan" --summary "$tmp/summary" "$tmp/hand"
same_file "$tmp/plan" - "water-filling to the exact fixed point: 4, 3, 4" <<'EOF'
http://a.example/	4	1021600	1
http://b.example/	3	1028800	0
http://c.example/	4	1021600	1
EOF
same_file "$tmp/stdout" - "G*T = 2 rows: the two due pages, one per site" <<'EOF'
http://a.example/	refresh	2	1021600
http://c.example/	refresh	1	1021600
EOF
# cost: 16/4/2 + 1/3/2 + 4/4/2; uniform 11/3 each: (16+1+4)/(11/3)/2
printf 'S\t7\ncapped\t2\ndue\t2\ncost\t2.6666666666666665\nuniform-cost\t2.8636363636363638\n' \
    >"$tmp/want"
grep -E '^(S|capped|due|cost|uniform-cost)	' "$tmp/summary" >"$tmp/got"
tsv_near "$tmp/got" "$tmp/want" 1e-12 "summary: S, capped, due, cost and uniform cost"
like "$(cat "$tmp/stderr")" "^wa-schedule: S	7" "the summary on stderr too"
# Read 21000 s ago, less than T: no page may be read again, whatever the
# bandwidth left.
exits 0 "nothing due yet" wa-schedule -G 11 -T 6h --alpha 1 --now 1021000 \
    --summary "$tmp/summary" "$tmp/hand"
is "$(cat "$tmp/stdout")" "" "no page read less than T ago is listed"
is "$(grep -E '^(due|candidates)' "$tmp/summary" | tr '\t\n' '= ')" "due=0 candidates=0 " \
    "and the summary counts no due page and no candidate"
# G*T = 4 rows: d and g due, e fetched T ago with no change rate yet
# (not refreshed, but a candidate), h fetched 2000 s ago (not one): 3
# rows, the due ones first, then e in a spare slot.
cat >"$tmp/spare" <<'EOF2'
http://d.example/	html	0.5	1	4	1000000	-
http://e.example/	html	0.2	1	-	1000000	-
http://g.example/	html	0.3	1	4	1000000	-
http://h.example/	html	0.3	1	4	1020000	-
EOF2
exits 0 "spare slots" wa-schedule -G 16 -T 6h --alpha 1 --now 1022000 \
    --summary "$tmp/summary" "$tmp/spare"
is "$(cut -f1,2,3 "$tmp/stdout" | sort | tr '\t\n' ' ;')" \
    "http://d.example/ refresh 3;http://e.example/ reread 1;http://g.example/ refresh 2;" \
    "the spare slot goes to a page read T ago, after the due ones; none read less than T ago"
is "$(grep -E '^(due|candidates|listed|early|reread)' "$tmp/summary" | tr '\t\n' '= ')" \
    "due=2 candidates=3 listed=3 early=0 reread=1 " \
    "2 due, 1 read again without a change rate, of 3 candidates"
# Failed pages: tried again T 2^(k-1) after the last try, k the failures
# in a row (a dead page without the column once), before more discovery;
# robots files, sitemaps read less than T ago, other files: never.
cat >"$tmp/failed" <<'EOF2'
http://d.example/a	dead	-	-	-	1000000	-
http://d.example/b	html	0.5	1	4	1000000	-	3
http://d.example/c	dead	-	-	-	1000000	-	2
http://d.example/d	html	0.5	1	4	1000000	-	9
http://d.example/robots.txt	robots	-	-	-	1000000	-
http://d.example/sitemap.xml	sitemap	-	-	-	1064800	-
http://d.example/x.png	other	-	-	-	1000000	-
http://n.example/new	-	0.1	-	-	-	-
http://n.example/new.png	-	0.9	-	-	-	-
EOF2
# At 1000000 + 4T - 1: a (T) and c (2T) due, b (4T) not yet, d (30d) not.
exits 0 "failed pages" wa-schedule -G 400 -T 6h --now 1086399 --summary "$tmp/summary" "$tmp/failed"
is "$(cut -f1,2 "$tmp/stdout" | sort | tr '\t\n' ' ;')" \
    "http://d.example/a retry;http://d.example/c retry;http://n.example/new discover-html;" \
    "retried after T, 2T, 4T...; no robots.txt, no image, no sitemap read less than T ago"
is "$(grep -E '^(candidates|retry)	' "$tmp/summary" | tr '\t\n' '= ')" "candidates=3 retry=2 " \
    "3 candidates, 2 retries"
exits 0 "failed pages, one second later" wa-schedule -G 400 -T 6h --now 1086400 "$tmp/failed"
is "$(cut -f1,2 "$tmp/stdout" | sort | tr '\t\n' ' ;')" \
    "http://d.example/a retry;http://d.example/b retry;http://d.example/c retry;http://d.example/sitemap.xml reread;http://n.example/new discover-html;" \
    "b after 4T; the sitemap read again in a spare slot"
exits 0 "--retry-max 1d" wa-schedule -G 400 -T 6h --retry-max 1d --now 1086400 "$tmp/failed"
is "$(grep -c 'retry' "$tmp/stdout")" 4 "d after a day"
exits 1 "a bad failure count" wa-schedule -G 400 -T 6h --now 1086400 - <<'EOF2'
http://d.example/a	dead	-	-	-	1000000	-	x
EOF2
like "$(cat "$tmp/stderr")" "stdin:1: failures 'x' is not a count" "named by file and line"

# --ahead moves the clock: 1003400 s plus 6 h is the hand example's 1025000.
exits 0 "--ahead 6h" wa-schedule -G 11 -T 6h --alpha 1 --now 1003400 --ahead 6h \
    --summary "$tmp/summary" "$tmp/hand"
same_file "$tmp/stdout" - "plans as the clock plus 6 h would: the due pages" <<'EOF2'
http://a.example/	refresh	2	1021600
http://c.example/	refresh	1	1021600
EOF2
is "$(grep '^due' "$tmp/summary")" "due${tab}2" "and counts them due"
exits 2 "--ahead takes a duration" wa-schedule -G 11 --ahead soon "$tmp/hand"
exits 0 "-q" wa-schedule -q -G 11 -T 6h --alpha 1 --now 1025000 "$tmp/hand"
is "$(cat "$tmp/stderr")" "" "-q: nothing on stderr"

# Sites interleaved, longest queues first (the Length strategy of Castillo,
# "Effective Web Crawling", 2004).
: >"$tmp/sites"
for p in a1 a2 a3 b1 b2 c1; do
	printf 'http://%s.example/%s\thtml\t1\t1\t1\t1000000\t-\n' "${p%?}" "$p" >>"$tmp/sites"
done
exits 0 "six due pages on three sites" wa-schedule -q -G 24 -T 6h --now 1100000 "$tmp/sites"
is "$(cut -f1 "$tmp/stdout" | sed 's|.*/||' | tr '\n' ' ')" "a1 b1 c1 a2 b2 a3 " \
    "round robin over the sites, the longest first"

# Discovery: G*T = 10, nothing to refresh: the shares (20% XML suspects,
# 30% other new pages) are no caps, discovery takes the cycle, XML
# suspects first, best first by importance (or by cash).
: >"$tmp/new"
for i in 1 2 3 4 5 6; do
	printf 'http://x.example/f%s.xml\t-\t0.%s\t-\t-\t-\t-\n' "$i" "$i" >>"$tmp/new"
	printf 'http://y.example/p%s\t-\t0.%s\t-\t-\t-\t-\n' "$i" "$i" >>"$tmp/new"
done
sort -o "$tmp/new" "$tmp/new"
exits 0 "discovery only" wa-schedule -q -G 40 -T 6h --discover-xml 20 --discover-html 30 \
    --now $NOW "$tmp/new"
is "$(cut -f1,2 "$tmp/stdout" | sort | tr '\t\n' ' ;')" \
    "http://x.example/f1.xml discover-xml;http://x.example/f2.xml discover-xml;http://x.example/f3.xml discover-xml;http://x.example/f4.xml discover-xml;http://x.example/f5.xml discover-xml;http://x.example/f6.xml discover-xml;http://y.example/p3 discover-html;http://y.example/p4 discover-html;http://y.example/p5 discover-html;http://y.example/p6 discover-html;" \
    "all 6 XML suspects and the 4 most important other pages"
printf 'http://y.example/p1\t9\nhttp://y.example/p2\t8\nhttp://y.example/p3\t7\n' >"$tmp/cash"
exits 0 "--cash" wa-schedule -q -G 40 -T 6h --discover-xml 20 --discover-html 30 \
    --cash "$tmp/cash" --now $NOW "$tmp/new"
is "$(grep html "$tmp/stdout" | cut -f1 | sort | tr '\n' ' ')" \
    "http://y.example/p1 http://y.example/p2 http://y.example/p3 http://y.example/p4 " \
    "--cash: the richest first, then the first URL of those without cash"

# Generated states against the verifier.
verify gen 3000 1 "$tmp/s1" --new 0.2 --categories
verify gen 3000 2 "$tmp/s2" --new 0.1
printf 'news\t3\narchive\t0.2\n' >"$tmp/cats"
cut -f1 "$tmp/s1" | awk -v t="$tab" 'NR % 40 == 1 { print $0 t "now" t "-" }
    NR % 40 == 2 { print $0 t "never" t "-" }
    NR % 40 == 3 { print $0 t "period" t (NR % 3 ? "1d" : "3600") }' >"$tmp/ov"
check() {	# NAME STATE OPTIONS...
	name=$1 state=$2; shift 2
	exits 0 "$name: wa-schedule" wa-schedule -q "$@" --now $NOW --plan "$tmp/plan" \
	    --summary "$tmp/summary" "$state"
	cp "$tmp/stdout" "$tmp/list"
	verify check "$state" "$tmp/plan" "$tmp/summary" "$tmp/list" "$@" --now $NOW \
	    >"$tmp/verify" 2>&1
	t_result $? "$name: the verifier agrees (f to 1e-9, summary, list)"
	grep -v '^ok' "$tmp/verify" | sed 's/^/#   /'
}
check "cap binding, chi 2, categories" "$tmp/s1" -G 6000 -T 6h --chi 2 --categories "$tmp/cats"
like "$(grep '^capped' "$tmp/summary")" "capped	[1-9]" "the cap binds"
check "cap not binding" "$tmp/s2" -G 500 -T 1h --discover-xml 0 --discover-html 0
is "$(grep '^capped' "$tmp/summary")" "capped${tab}0" "no page capped"
grep -q '^ok cost = S' "$tmp/verify"
t_result $? "cost = S^(alpha+1)/((alpha+1) G^alpha), the analytic optimum"
check "overrides" "$tmp/s1" -G 6000 -T 6h --overrides "$tmp/ov" --categories "$tmp/cats"
check "alpha 2, T 1d" "$tmp/s2" -G 1500 -T 1d --alpha 2 --chi 0.3
for G in 6000 9000 10000 12000; do
	check "G $G, most or all capped" "$tmp/s2" -G $G -T 6h --discover-xml 0 --discover-html 0
done
is "$(grep '^level' "$tmp/summary")" "level${tab}inf" "every page at the cap"

# The same state from stdin, or split in two files, gives the same outputs.
wa-schedule -q -G 6000 --chi 2 --categories "$tmp/cats" --now $NOW --plan "$tmp/plan1" \
    "$tmp/s1" >"$tmp/list1"
wa-schedule -q -G 6000 --chi 2 --categories "$tmp/cats" --now $NOW --plan "$tmp/plan2" \
    <"$tmp/s1" >"$tmp/list2"
same_file "$tmp/list2" "$tmp/list1" "stdin (spooled): the same list"
same_file "$tmp/plan2" "$tmp/plan1" "stdin: the same plan"
head -n 1000 "$tmp/s1" | gzip >"$tmp/s1a.gz"
tail -n +1001 "$tmp/s1" >"$tmp/s1b"
wa-schedule -q -G 6000 --chi 2 --categories "$tmp/cats" --now $NOW --plan "$tmp/plan2" \
    "$tmp/s1a.gz" "$tmp/s1b" >"$tmp/list2"
same_file "$tmp/list2" "$tmp/list1" "two files, one gzip: the same list"

# Bad input: stopped with the file and line.
{ sed -n 1p "$tmp/hand"; sed -n 3p "$tmp/hand"; sed -n 2p "$tmp/hand"; } >"$tmp/unsorted"
exits 1 "unsorted state" wa-schedule -G 11 "$tmp/unsorted"
like "$(cat "$tmp/stderr")" "unsorted:3: not sorted" "named by file and line"
exits 1 "unsorted across files" wa-schedule -G 11 --categories "$tmp/cats" \
    "$tmp/s1b" "$tmp/s1a.gz"
like "$(cat "$tmp/stderr")" "s1a.gz:1: not sorted" "named by the second file's first line"
sed '2s/html/page/' "$tmp/hand" >"$tmp/bad"
exits 1 "bad type" wa-schedule -G 11 "$tmp/bad"
like "$(cat "$tmp/stderr")" "bad:2: type 'page'" "the type named"
sed '3s/-$/sports/' "$tmp/hand" >"$tmp/bad"
exits 1 "unknown category" wa-schedule -G 11 --categories "$tmp/cats" "$tmp/bad"
like "$(cat "$tmp/stderr")" "bad:3: category 'sports'" "the category named"
sed '1s/1000000/soon/' "$tmp/hand" >"$tmp/bad"
exits 1 "bad access time" wa-schedule -G 11 "$tmp/bad"
like "$(cat "$tmp/stderr")" "bad:1: access time" "the column named"
printf 'http://b.example/\tsoon\t-\n' >"$tmp/badov"
exits 1 "bad override action" wa-schedule -G 11 --overrides "$tmp/badov" "$tmp/hand"
like "$(cat "$tmp/stderr")" "badov:1: action 'soon'" "the action named"
printf 'http://c.example/\tnow\t-\nhttp://a.example/\tnow\t-\n' >"$tmp/badov"
exits 1 "unsorted overrides" wa-schedule -G 11 --overrides "$tmp/badov" "$tmp/hand"
like "$(cat "$tmp/stderr")" "badov:2: not sorted" "named by file and line"
printf 'http://a.example/\tnow\t-\nhttp://z.example/\tnow\t-\n' >"$tmp/ov2"
exits 0 "an override for an unknown URL" wa-schedule -G 11 --overrides "$tmp/ov2" "$tmp/hand"
like "$(cat "$tmp/stderr")" "1 URLs not in the page state" "is reported"
rm -f "$tmp/plan"
exits 1 "a failing run" wa-schedule -G 11 --plan "$tmp/plan" "$tmp/unsorted"
ok "leaves no plan file" test ! -e "$tmp/plan"
# The letters of the release before still work this release: -F FILE as
# --plan FILE, -s FILE as --summary FILE, each with a warning line.
exits 0 "the old letters -F and -s" wa-schedule -q -G 11 -T 6h --alpha 1 --now 1025000 \
    -F "$tmp/old-plan" -s "$tmp/old-summary" "$tmp/hand"
mv "$tmp/stdout" "$tmp/old-list"
is "$(cat "$tmp/stderr")" "wa-schedule: -F is now --plan; the old spelling goes in the next release
wa-schedule: -s is now --summary; the old spelling goes in the next release" \
    "a warning line for each, naming the new spelling"
exits 0 "their new spellings" wa-schedule -q -G 11 -T 6h --alpha 1 --now 1025000 \
    --plan "$tmp/new-plan" --summary "$tmp/new-summary" "$tmp/hand"
same_file "$tmp/stdout" "$tmp/old-list" "give the same fetch list"
same_file "$tmp/new-plan" "$tmp/old-plan" "the same plan"
same_file "$tmp/new-summary" "$tmp/old-summary" "and the same summary"

exits 2 "no -G" wa-schedule "$tmp/hand"
exits 2 "shares over 100%" wa-schedule -G 11 --discover-xml 60 --discover-html 50 "$tmp/hand"
exits 2 "G*T under one fetch" wa-schedule -G 1 -T 1h "$tmp/hand"
exits 0 "-h" wa-schedule -h
like "$(head -1 "$tmp/stdout")" "^usage: wa-schedule" "the usage"

done_testing
