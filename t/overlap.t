#!/bin/sh
# Fetch and extract at once: wa-fetch --warc-copy into wa-extract, by hand
# and in the cycle (OVERLAP), on the small web of real documents of
# scripts/docs-web, in a network namespace of its own.  The links and the
# pages must be, byte for byte, those that wa-extract writes from the WARC
# files after the fetch, and the copy must be the files' bytes in order.
if [ "${WA_OVERLAP_NETNS:-}" != 1 ] && unshare -n true 2>/dev/null &&
    command -v ip >/dev/null; then
	# shellcheck disable=SC2016
	WA_OVERLAP_NETNS=1 exec unshare -n sh -c 'ip link set lo up && exec sh "$0"' "$0"
fi
. "$(dirname "$0")/lib.sh"
[ "${WA_OVERLAP_NETNS:-}" = 1 ] || skip_all "needs unshare -n and ip (root)"
needs_small_docs_web
T=$(printf '\t')

web=$tmp/web
docs-web -q --small "$web" >/dev/null
i=0 resolve=
while IFS="$T" read -r host _ _; do
	i=$((i + 1))
	nginx_start "$host" "$(t_addr $((10 + i)))" 8080 "$web/$host" "$(cat "$web/$host.conf")"
	resolve="$resolve --resolve $host:8080:$(t_addr $((10 + i)))"
	echo "http://$host:8080/sitemap.xml"
done <"$web/sites.tsv" >"$tmp/urls"
sites=$i
# Every page a crawler finds, the dead and the moved ones too.
cat "$web/reachable.txt" "$web/dead.txt" >>"$tmp/urls"
cut -f1 "$web/moved.tsv" >>"$tmp/urls"

# fetch_copying WARC COPY-TO [wa-fetch options]: the URLs fetched, the
# records copied to COPY-TO; the fetch log in $tmp/fetch.log, the status
# in $tmp/fetch.status (124 if it hangs).
fetch_copying() {
	warc=$1 copy=$2
	shift 2
	# shellcheck disable=SC2086
	timeout 120 wa-fetch -q -w 0 -r $sites --allow-private $resolve "$@" -o "$warc" \
		--warc-copy "$copy" "$tmp/urls" >"$tmp/fetch.log"
	echo $? >"$tmp/fetch.status"
}

# By hand: the records go through a pipe to wa-extract while the fetch
# goes on, in WARC files of at most 1 MB.
{ fetch_copying "$tmp/crawl.warc.gz" /dev/fd/3 --warc-max-size 1M 3>&1; } |
	tee "$tmp/copy" | wa-extract -q -p "$tmp/pages.overlap" - >"$tmp/links.overlap" 2>"$tmp/extract.err"
is "$? $(cat "$tmp/fetch.status")" "0 0" "wa-fetch --warc-copy | wa-extract -: both succeed"
files="$tmp/crawl.warc.gz $(ls "$tmp"/crawl-[0-9]*.warc.gz | sort | tr '\n' ' ')"
# shellcheck disable=SC2086
set -- $files
like "$#" '^([3-9]|[1-9][0-9]+)$' "the fetch wrote several WARC files ($#)"
cat "$@" >"$tmp/files"
ok "the copy is the bytes of the WARC files, in the order written" \
	cmp -s "$tmp/copy" "$tmp/files"
wa-extract -q -p "$tmp/pages.after" "$@" >"$tmp/links.after" 2>/dev/null
same_file "$tmp/links.overlap" "$tmp/links.after" \
	"the links are those of wa-extract on the files after the fetch"
same_file "$tmp/pages.overlap" "$tmp/pages.after" "and so are the pages"

# Against what the web holds: a page row for every URL the log has a
# response of, and every page the sites allow is linked (by the sitemaps
# at least).
awk -F "$T" '$3 ~ /^[0-9]+$/ { print $1 }' "$tmp/fetch.log" | sort -u >"$tmp/responses"
grep -v '/robots[.]txt$' "$tmp/responses" >"$tmp/responses.pages"
cut -f1 "$tmp/pages.overlap" | grep -v '/robots[.]txt$' | sort -u >"$tmp/page-urls"
same_file "$tmp/page-urls" "$tmp/responses.pages" "a page row for every response of the log"
like "$(wc -l <"$tmp/page-urls")" '^[1-9][0-9][0-9]+$' "hundreds of pages"
wa-url -q "$web/reachable.txt" | cut -f1 | grep -v ':8080/$' | sort -u >"$tmp/reachable"
cut -f2 "$tmp/links.overlap" | sort -u | comm -13 - "$tmp/reachable" >"$tmp/unlinked"
is "$(head -3 "$tmp/unlinked")" "" "every page the sites allow is linked"

# A copy that cannot be opened: an error naming it, and no WARC file.
mkdir "$tmp/bad"
fetch_copying "$tmp/bad/crawl.warc.gz" "$tmp/no/such/dir" 2>"$tmp/err"
is "$(cat "$tmp/fetch.status")" 1 "--warc-copy into a missing directory: exit 1"
like "$(cat "$tmp/err")" "no/such/dir: No such file or directory" "naming it"
is "$(ls -A "$tmp/bad")" "" "and no WARC file is left"

exits 2 "--warc-copy without -o is refused" wa-fetch -q --warc-copy "$tmp/x" /dev/null

# A reader that goes away: the fetch stops at once, with no WARC file
# under its name.
mkdir "$tmp/gone"
{ fetch_copying "$tmp/gone/crawl.warc.gz" /dev/fd/3 3>&1 2>"$tmp/err"; } | head -c 1000 >/dev/null
status=$(cat "$tmp/fetch.status")
like "$status" '^(1|141)$' "the reader of the copy gone: wa-fetch fails ($status)"
is "$(ls -A "$tmp/gone")" "" "and leaves no WARC file"

# The cycle: a first cycle of the seeds, then a second of the pages they
# link to, in WARC files of at most 1 MB, extracted while fetched
# (OVERLAP=yes, the default) or after (OVERLAP=no).
for overlap in yes no; do
	fc=$tmp/fc-$overlap
	ok "two cycles, OVERLAP=$overlap" \
		first-contact -q --small -n 2 -a "$t_net" -o "$fc" OVERLAP=$overlap \
		FETCH_FLAGS='--warc-max-size 1M'
	c=$fc/state/cycle-2
	set -- "$c"/*.warc.gz
	like "$#" '^([2-9]|[1-9][0-9]+)$' "OVERLAP=$overlap: several WARC files ($#)"
	wa-extract -q -p "$tmp/pages.$overlap" "$@" >"$tmp/links.$overlap" 2>/dev/null
	same_file "$c/links.tsv" "$tmp/links.$overlap" \
		"OVERLAP=$overlap: the links are wa-extract's of the WARC files"
	same_file "$c/pages.tsv" "$tmp/pages.$overlap" "OVERLAP=$overlap: the pages too"
	is "$(ls -A "$c" | grep overlap)" "" "OVERLAP=$overlap: nothing of the overlap is left"
done

done_testing
