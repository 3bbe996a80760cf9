#!/bin/sh
# The README's "One cycle" examples as a new user runs them: a seed list of
# one HTML home page, the commands as written (wa-fetch and wa-cycle given
# the test web's addresses, and the cycle limited to the site), on the test
# web.  The site has no XML page: the importance is computed, the
# usefulness is empty and the report says so, and the budget is spent on
# what there is to fetch.
. "$(dirname "$0")/lib.sh"
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"
web_start
T=$(printf '\t')
# The lines of the indented block that follows the README line matching $1.
block() {
	awk -v start="$1" 'index($0, start) == 1 { on = 1; next }
		on && /^    / { sub(/^    /, ""); print; seen = 1; next }
		on && seen && !/^    / { exit }' "$ROOT/README"
}
block 'One cycle by hand' >"$tmp/by-hand.sh"
block 'The same every night' >"$tmp/nightly.sh"
is "$(wc -l <"$tmp/by-hand.sh")" 6 "the README has the six commands of one cycle"
is "$(wc -l <"$tmp/nightly.sh")" 2 "and the two of the nightly cycle"

# The commands as written; wa-fetch is given the test web's addresses.
mkdir "$tmp/bin" "$tmp/h"
cat >"$tmp/bin/wa-fetch" <<EOF2
#!/bin/sh
exec "$WA_BIN/wa-fetch" --allow-private -w 0 $WEB_RESOLVE "\$@"
EOF2
chmod +x "$tmp/bin/wa-fetch"
site=http://www.test:8080/
cd "$tmp/h" || exit 1
echo "$site" >seeds.txt
ok "one cycle by hand runs as written" env PATH="$tmp/bin:$PATH" sh -e "$tmp/by-hand.sh"
is "$(cut -f1,3 fetch.log)" "$site${T}200" "the home page is fetched"
ok "and its links extracted" test "$(wc -l <links.tsv)" -gt 10
nodes=$(wa-linkmat --dump-nodes graph | awk -F "$T" '$2 !~ /^(other|error|dead|robots|sitemap)$/' |
	wc -l)
is "$(wc -l <importance.tsv)" "$nodes" "importance for every page"
is "$(grep -c 'robots[.]txt' importance.tsv)" 0 "robots.txt is no page"
awk -F "$T" '$2 == "xml"' pages.tsv >"$tmp/xml"
if [ -s "$tmp/xml" ]; then
	ok "usefulness towards the XML pages" test -s usefulness.tsv
else
	is "$(wc -l <usefulness.tsv)" 0 "no XML page: an empty usefulness"
fi

# The nightly cycle, twice, on the site alone: it has no XML page.
cd "$tmp" || exit 1
sed 's/^\(wa-cycle .*\)$/\1 WAIT=0 ALLOW_PRIVATE=1 SCOPE=^http:\/\/www[.]test:8080\/ RESOLVE="$RESOLVE"/' \
	"$tmp/nightly.sh" >"$tmp/nightly.run"
RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')
export RESOLVE
echo "$site" >seeds.txt
ok "the nightly cycle runs as written" sh -ec ". '$tmp/nightly.run'"
like "$(cat "$tmp/stdout")" "usefulness: none, no XML page" "and its report says there is no usefulness"
ok "a second cycle, 6 h later" wa-cycle --now "$(($(date +%s) + 21600))" state G=1000 T=6h \
	WAIT=0 ALLOW_PRIVATE=1 "SCOPE=^http://www[.]test:8080/" RESOLVE="$RESOLVE"
c2=state/cycle-2
# The candidates, counted here from cycle 1's state: in the site, the
# documents and sitemaps read (6 h ago, so T ago), the pages that failed
# once (tried again after T), and the URLs never tried that may be
# documents (typed - or xml-suspect: the graph types by suffix the others).
candidates=$(awk -F "$T" '$1 ~ /^http:\/\/www[.]test:8080\// &&
	(($6 != "-" && ($2 ~ /^(html|xml|dtd|noindex|sitemap)$/ || $8 > 0)) ||
	($6 == "-" && $2 ~ /^(-|xml-suspect)$/))' state/cycle-1/state.tsv | wc -l)
ok "cycle 2 has candidates" test "$candidates" -gt 10
is "$(wc -l <"$c2/plan.tsv")" "$candidates" "cycle 2 plans them all: fewer than G x T = 250"
ok "nothing outside the site" test "$(grep -vc '^http://www[.]test:8080/' "$c2/fetch.log")" -eq 0
is "$(grep -c 'robots[.]txt' "$c2/importance.tsv" "$c2/next.tsv" | awk -F: '{ s += $2 } END { print s }')" 0 \
	"robots.txt is neither ranked nor scheduled"
done_testing
