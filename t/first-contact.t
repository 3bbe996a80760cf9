#!/bin/sh
# First contact with a web of real documents: scripts/first-contact --small
# runs four cycles over the small web of scripts/docs-web, seeded with its
# home pages only, in a network namespace of its own.  Every cycle must
# complete, the budget must not idle while there are pages to fetch, no
# robots.txt may be ranked or scheduled, and by the end the crawl must know
# and have fetched every page that the served files say is reachable.
. "$(dirname "$0")/lib.sh"
offline true 2>/dev/null || skip_all "needs unshare -n (root)"
needs_small_docs_web
T=$(printf '\t')
n=4
fc=$tmp/fc

ok "first-contact runs $n cycles of the small web" \
	first-contact -q --small -n $n -a "$t_net" -o "$fc"
sed 's/^/# /' "$tmp/stdout"
table=$fc/table.tsv
rows() { grep -v '^#' "$table"; }

is "$(rows | awk -F "$T" '$2 != "ok" { print "cycle " $1 ": " $2 }')" "" \
	"no cycle fails"
is "$(rows | wc -l)" $n "the table has a row a cycle"
is "$(rows | awk -F "$T" '$2 == "ok" && $16 == 1 {
	printf "cycle %d: %d rows planned, G x T %d, %d candidates\n", $1, $4, $5, $6 }')" "" \
	"the budget never idles while there are candidates"
is "$(rows | awk -F "$T" '$2 == "ok" && $15 > 0 { print "cycle " $1 ": " $15 }')" "" \
	"no robots.txt is ranked or scheduled"
for c in "$fc"/state/cycle-*/; do
	[ -f "$c/next.tsv" ] || continue
	grep -H '/robots[.]txt' "$c/importance.tsv" "$c/usefulness.tsv" "$c/next.tsv" |
		head -3 | sed 's/^/#   /'
done

# The reachable pages from the served files alone: every HTML file of a
# site that its robots.txt allows (the sitemaps list them all), its home
# page as /, and its feed.
web=$fc/web
for site in "$web"/*.docs.test; do
	[ -d "$site" ] || continue
	host=${site##*/}
	# robots.txt's Disallow rules of the * group as anchored EREs.
	awk '/^User-agent:/ { star = ($2 == "*") } star && /^Disallow: / {
		r = $2; gsub(/[.]/, "[.]", r); gsub(/[?]/, "[?]", r); gsub(/\*/, ".*", r)
		print "^" r }' "$site/robots.txt" >"$tmp/rules"
	(cd "$site" && find . -type f \( -name '*.html' -o -name '*.htm' \)) |
		sed 's|^\.||' | grep -v -E -f "$tmp/rules" |
		sed "s|^|http://$host:8080|"
	for p in / /feed.atom; do echo "http://$host:8080$p"; done
done | wa-url -q | sort -u >"$tmp/reachable"
reachable=$(wc -l <"$tmp/reachable")
like "$reachable" '^[1-9][0-9][0-9]+$' "the small web has hundreds of reachable pages ($reachable)"
same_file "$tmp/reachable" "$fc/oracle/reachable" "first-contact's oracle counts the same pages"

last=$(rows | tail -1)
c=$fc/state/cycle-$n
cat "$fc"/state/cycle-*/fetch.log >"$tmp/fetches" 2>/dev/null || : >"$tmp/fetches"
if [ -f "$c/state.tsv" ]; then
	cut -f1 "$c/state.tsv" | sort -u | comm -13 - "$tmp/reachable" >"$tmp/unknown"
else
	cp "$tmp/reachable" "$tmp/unknown"
fi
awk -F "$T" '$3 ~ /^(2[0-9][0-9]|304)$/ { print $1 }' "$tmp/fetches" |
	sort -u >"$tmp/fetched"
comm -13 "$tmp/fetched" "$tmp/reachable" >"$tmp/unfetched"
is "$(wc -l <"$tmp/unknown" | tr -d ' ')" 0 "after $n cycles every reachable page is known"
head -5 "$tmp/unknown" | sed 's/^/#   unknown: /'
is "$(wc -l <"$tmp/unfetched" | tr -d ' ')" 0 "and fetched ($((n - 1)) cycles of G x T = $(echo "$last" | cut -f5) rows)"
head -5 "$tmp/unfetched" | sed 's/^/#   never fetched: /'
is "$(echo "$last" | cut -f11,12)" "$reachable$T$reachable" "the table says so too"

# What the crawl met: it obeys robots.txt, finds the dead links dead and
# the moved pages moved, fetches nothing outside the test sites, and sees
# pages change.
is "$(awk -F "$T" 'NR == FNR { d[$1] = 1; next } ($1 in d) && $3 ~ /^2/ { print $1 }' \
	"$web/disallowed.txt" "$tmp/fetches")" "" "no page robots.txt disallows is fetched"
ok "some are met and refused" \
	awk -F "$T" 'NR == FNR { d[$1] = 1; next } ($1 in d) && $3 == "robots" { n++ } END { exit !n }' \
	"$web/disallowed.txt" "$tmp/fetches"
is "$(awk -F "$T" 'NR == FNR { d[$1] = 1; next } ($1 in d) && $3 != 404 { print $1 " " $3 }' \
	"$web/dead.txt" "$tmp/fetches")" "" "a dead link answers 404"
ok "dead links are met" \
	awk -F "$T" 'NR == FNR { d[$1] = 1; next } ($1 in d) { n++ } END { exit !n }' \
	"$web/dead.txt" "$tmp/fetches"
is "$(awk -F "$T" 'NR == FNR { m[$1] = $2; next } ($1 in m) && ($3 != 301 || $10 != m[$1]) {
	print $1 " " $3 " " $10 }' "$web/moved.tsv" "$tmp/fetches")" "" \
	"a moved page answers 301 to its new URL"
ok "moved pages are met" \
	awk -F "$T" 'NR == FNR { m[$1] = 1; next } ($1 in m) { n++ } END { exit !n }' \
	"$web/moved.tsv" "$tmp/fetches"
is "$(cut -f3 "$web/sites.tsv" | sed 's|$|sitemap.xml|' | sort |
	comm -23 - "$tmp/fetched")" "" "every site's sitemap is fetched"
is "$(awk -F "$T" '$2 != "-" && $1 !~ /^http:\/\/[a-z0-9]+[.]docs[.]test:8080\// { print $1 }' \
	"$tmp/fetches" | head -3)" "" "nothing is fetched outside the test sites"
ok "the web changes between the cycles" test -s "$fc/oracle/changes"
is "$(rows | awk -F "$T" '$2 == "ok" && $14 != $18 {
	print "cycle " $1 ": " $14 " by the change times, " $18 " by the digests" }')" "" \
	"the fresh pages by the true change times are those whose copy is the file served"
ok "and the cycles see changed pages" \
	awk -F "$T" '$2 == "ok" && $8 > 0 { n++ } END { exit !n }' "$table"
done_testing
