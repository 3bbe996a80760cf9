#!/bin/sh
# The names of the WARC files and their warcinfo records: wa-fetch
# --warc-prefix names its files PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz, in
# the order written, whose warcinfo records say who made them (read back
# by warcio.js, a reader written by others, and by ours); bad values are
# refused; two cycles of wa-cycle on the test web write files of other
# names, and the extract step reads them in the order written.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/warc-lib.sh"
need_warcio
command -v flock >/dev/null || skip_all "needs flock(1) (util-linux)"
web_start
T=$(printf '\t')
# The host name as the files carry it: its bytes other than letters,
# digits, '.' and '-' made '_'.
host=$(uname -n)
fhost=$(printf '%s' "$host" | tr -c 'A-Za-z0-9.-' _)
ver=$(wa-fetch --version | sed 's/.* //')
stamp='[0-9]{17}'
# shellcheck disable=SC2086
fetch() { wa-fetch -q -w 0 --allow-private $WEB_RESOLVE "$@" "$TESTDATA/web/seeds.txt"; }
# warcinfo FILE: the block of FILE's warcinfo record, as warcio.js reads it.
warcinfo() {
	WARCIO_DIR=$WARCIO_DIR node -e '
		const { WARCParser } = require(process.env.WARCIO_DIR + "/node_modules/warcio");
		const fs = require("fs");
		(async () => {
			for await (const r of new WARCParser(fs.createReadStream(process.argv[1])))
				if (r.warcType === "warcinfo") {
					process.stdout.write(Buffer.from(await r.readFully()));
					break;
				}
		})();' "$1"
}

# One fetch rolling over past 5 KB, about 20 files.
one=$tmp/one
mkdir "$one"
before=$(date -u +%Y%m%d%H%M%S)
ok "a fetch with --warc-prefix and --warc-max-size 5K" \
	fetch --warc-prefix "$one/wa" --warc-max-size 5K --warc-copy "$tmp/copy" \
	--warc-operator 'Test Operator <ops@example.org>' --warc-is-part-of naming-test \
	--warc-description 'the test web, fetched once' -H 'From: ops@example.org'
after=$(date -u +%Y%m%d%H%M%S)
ls "$one" >"$tmp/names"
n=$(wc -l <"$tmp/names")
like "$n" '^[1-9][0-9]+$' "it wrote ten files or more ($n)"
is "$(grep -Evc "^wa-$stamp-[0-9]{5}-$fhost[.]warc[.]gz\$" "$tmp/names")" 0 \
	"every name is wa-TIMESTAMP-SERIAL-HOST.warc.gz"
is "$(cut -d- -f2 "$tmp/names" | sort -u | wc -l)" 1 "the files of one run share their timestamp"
ts=$(head -1 "$tmp/names" | cut -d- -f2)
is "$(awk -v t="${ts%???}" -v lo="$before" -v hi="$after" 'BEGIN { print (t >= lo && t <= hi) }')" 1 \
	"the timestamp is the UTC time of the run ($ts, between $before and $after)"
is "$(cut -d- -f3 "$tmp/names")" "$(seq -f %05g 0 $((n - 1)))" \
	"their serials run from 00000 in name order"
(cd "$one" && cat $(cat "$tmp/names")) >"$tmp/cat"
ok "the files in name order are the records in the order written (the --warc-copy)" \
	cmp -s "$tmp/cat" "$tmp/copy"
bad=
while read -r f; do
	got=$(warcio_tsv "$one/$f" warc-type warc-filename | head -1)
	[ "$got" = "warcinfo$T$f" ] || bad="$bad $f:$got"
done <"$tmp/names"
is "$bad" "" "each file begins with a warcinfo record naming it (warcio)"

# The warcinfo record.
warcinfo "$one/$(head -1 "$tmp/names")" >"$tmp/info"
tr -d '\r' <"$tmp/info" | grep -v '^software: ' >"$tmp/info-fields"
same_file "$tmp/info-fields" - "the warcinfo fields, read by warcio.js" <<EOF
format: WARC File Format 1.1
conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/
robots: obey
http-header-user-agent: wa-fetch/$ver
wa-fetch-robots-agent: wa-fetch
wa-fetch-wait: 0s
hostname: $host
http-header-from: ops@example.org
operator: Test Operator <ops@example.org>
isPartOf: naming-test
description: the test web, fetched once
EOF
like "$(tr -d '\r' <"$tmp/info" | head -1)" "^software: wa-fetch/$ver libcurl/[0-9]+[.][0-9]+" \
	"software names wa-fetch and libcurl with their versions"
is "$(grep -c "$(printf '\r$')" "$tmp/info") $(wc -l <"$tmp/info")" "12 12" \
	"the block is application/warc-fields: 12 lines ending in CR LF"
is "$(for f in $(cat "$tmp/names"); do warcinfo "$one/$f" | cksum; done | sort -u | wc -l)" 1 \
	"every file of the run has the same warcinfo block"
"$WA_UNIT/test-warc" read "$one/$(head -1 "$tmp/names")" | head -1 | cut -f2,4,5 >"$tmp/ours"
is "$(cat "$tmp/ours")" "warcinfo$T$(wc -c <"$tmp/info")$T$(warc_digest <"$tmp/info")" \
	"our reader finds the same warcinfo block (length and SHA-1)"

# Another run with the same prefix into the same directory: new names.
sleep 0.01
ok "a second run with the same prefix" fetch --warc-prefix "$one/wa"
is "$(ls "$one" | wc -l)" $((n + 1)) "adds a file of another name"
(cd "$one" && cat $(cat "$tmp/names")) >"$tmp/cat"
ok "and leaves those of the first run as they were" cmp -s "$tmp/cat" "$tmp/copy"

# -o names its files as before.
mkdir "$tmp/o"
ok "-o with --warc-max-size 1" fetch -o "$tmp/o/crawl.warc.gz" --warc-max-size 1
is "$(ls "$tmp/o" | head -3 | tr '\n' ' ')" "crawl-00001.warc.gz crawl-00002.warc.gz crawl-00003.warc.gz " \
	"names crawl.warc.gz, crawl-00001.warc.gz..."
ok "crawl.warc.gz first" test -s "$tmp/o/crawl.warc.gz"

# Bad values are refused before anything is fetched.
mkdir "$tmp/bad"
exits 2 "a line break in --warc-operator is refused" \
	fetch --warc-prefix "$tmp/bad/wa" --warc-operator "$(printf 'a\nb')"
like "$(head -1 "$tmp/stderr")" "^wa-fetch: --warc-operator: 'a[.]{3}' holds a control character \(byte 0x0a\)" \
	"with a message naming the option and the byte"
exits 2 "a tab in --warc-description is refused" \
	fetch --warc-prefix "$tmp/bad/wa" --warc-description "$(printf 'a\tb')"
exits 2 "a prefix that is a directory only is refused" fetch --warc-prefix "$tmp/bad/"
like "$(head -1 "$tmp/stderr")" "--warc-prefix: .* ends with no name" "and says why"
exits 2 "-o and --warc-prefix together are refused" fetch -o "$tmp/bad/x.warc.gz" --warc-prefix "$tmp/bad/wa"
is "$(ls -A "$tmp/bad")" "" "and no file is written"

# Two cycles: their files have other names, the extract step reads them
# in the order written.
s=$tmp/state
mkdir "$s" && cp "$TESTDATA/web/seeds.txt" "$s/seeds.tsv"
resolve="RESOLVE=$(echo "$WEB_RESOLVE" | sed 's/--resolve //g')"
cycle() {	# NOW [VAR=value...]
	now=$1; shift
	wa-cycle --now "$now" "$s" WAIT=0 ALLOW_PRIVATE=1 G=100 OVERLAP=no \
		'SCOPE=^http://[a-z]+[.]test:8080/' "$resolve" 'FETCH_FLAGS=--warc-max-size 5K' "$@"
}
ok "cycle 1 (default names)" cycle 1800000000
ok "cycle 2, WARC_PREFIX=nightly and the warcinfo fields" cycle 1800086400 WARC_PREFIX=nightly \
	"WARC_OPERATOR=Ops <ops@example.org>" WARC_IS_PART_OF=coll 'WARC_DESCRIPTION=cycle two'
for c in 1 2; do
	(cd "$s/cycle-$c" && ls -- *.warc.gz) >"$tmp/names$c"
done
is "$(grep -Evc "^wa-$stamp-[0-9]{5}-$fhost[.]warc[.]gz\$" "$tmp/names1")" 0 \
	"cycle 1: the files are wa-TIMESTAMP-SERIAL-HOST.warc.gz"
is "$(grep -Evc "^nightly-$stamp-[0-9]{5}-$fhost[.]warc[.]gz\$" "$tmp/names2")" 0 \
	"cycle 2: nightly-TIMESTAMP-SERIAL-HOST.warc.gz"
like "$(wc -l <"$tmp/names1") $(wc -l <"$tmp/names2")" '^([2-9]|[1-9][0-9]+) ([2-9]|[1-9][0-9]+)$' \
	"each cycle wrote several files"
is "$(sort "$tmp/names1" "$tmp/names2" | uniq -d)" "" "no name is in both cycles"
ts1=$(head -1 "$tmp/names1" | cut -d- -f2) ts2=$(head -1 "$tmp/names2" | cut -d- -f2)
is "$(awk -v a="$ts1" -v b="$ts2" 'BEGIN { print (b > a) }')" 1 \
	"cycle 2's timestamp is later than cycle 1's ($ts2, $ts1)"
for c in 1 2; do
	d=$s/cycle-$c
	# The order written: by serial (column 3 of the name).
	sort -t- -k3,3n "$tmp/names$c" | sed "s|^|$d/|" >"$tmp/order$c"
	# shellcheck disable=SC2046
	wa-extract -q -p "$tmp/pages$c" $(cat "$tmp/order$c") >"$tmp/links$c" 2>/dev/null
	same_file "$d/links.tsv" "$tmp/links$c" "cycle $c: the links are wa-extract's of the files in the order written"
	same_file "$d/pages.tsv" "$tmp/pages$c" "cycle $c: the pages too"
	# shellcheck disable=SC2046
	wa-extract -q $(sort -r "$tmp/order$c") >"$tmp/reversed$c" 2>/dev/null
	ok "cycle $c: (in another order they would differ)" sh -c "! cmp -s '$d/links.tsv' '$tmp/reversed$c'"
done
warcinfo "$(head -1 "$tmp/order1")" | tr -d '\r' | grep -E '^(operator|isPartOf|description):' >"$tmp/info1"
same_file "$tmp/info1" - "cycle 1: isPartOf is the state directory's name" <<EOF
isPartOf: state
EOF
warcinfo "$(head -1 "$tmp/order2")" | tr -d '\r' | grep -E '^(operator|isPartOf|description):' >"$tmp/info2"
same_file "$tmp/info2" - "cycle 2: the warcinfo fields of WARC_OPERATOR, WARC_IS_PART_OF, WARC_DESCRIPTION" <<EOF
operator: Ops <ops@example.org>
isPartOf: coll
description: cycle two
EOF

# Bad settings are refused before the cycle starts.
exits 2 "WARC_OPERATOR with a line break: a bad setting" cycle 1800172800 "WARC_OPERATOR=$(printf 'a\nb')"
like "$(cat "$tmp/stderr")" "WARC_OPERATOR holds a line break" "that says why"
exits 2 "WARC_DESCRIPTION with a tab: a bad setting" cycle 1800172800 "WARC_DESCRIPTION=$(printf 'a\tb')"
like "$(cat "$tmp/stderr")" "wa-fetch: --warc-description: 'a[.]{3}' holds a control character" \
	"that wa-fetch's message explains"
exits 2 "WARC_PREFIX with a '/': a bad setting" cycle 1800172800 WARC_PREFIX=a/b
like "$(cat "$tmp/stderr")" "WARC_PREFIX: 'a/b' is not a name" "that says why"
is "$(readlink "$s/current")" cycle-2 "no cycle ran"

done_testing
