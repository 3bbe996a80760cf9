# WARC helpers for the tests, sourced after t/lib.sh.  They use warcio.js
# (webrecorder), a WARC reader written by others, installed in t/warcio by
# the Makefile (make t/warcio/node_modules/.bin/warcio).
#
#   need_warcio                   stops the test if warcio is not installed
#   warcio_index FILE [FIELDS]    warcio's index: one JSON line per record;
#                                 FIELDS comma-separated WARC header names
#                                 (lower case) or offset, length
#   warcio_tsv FILE FIELD...      the same as TSV, "-" for a missing field
#   warc_digest                   "sha1:" and the RFC 4648 base32 SHA-1 of
#                                 stdin, computed by openssl and base32
#   warcio_write FILE             a WARC written by warcio.js (gzip if FILE
#                                 ends in .gz): t/warcio/write-warc.mjs

WARCIO_DIR=$ROOT/t/warcio
WARCIO=$WARCIO_DIR/node_modules/.bin/warcio

need_warcio() {
	if [ ! -x "$WARCIO" ]; then
		echo "Bail out! warcio.js is not installed: run make $WARCIO"
		exit 1
	fi
}

warcio_index() {	# FILE [FIELDS]
	"$WARCIO" index "$1" -f "${2:-offset,warc-type,warc-target-uri}"
}

warcio_tsv() {		# FILE FIELD...
	warcio_tsv_file=$1
	shift
	warcio_index "$warcio_tsv_file" "$(IFS=,; echo "$*")" | node -e '
		const fields = process.argv.slice(1);
		let text = "";
		process.stdin.on("data", (d) => { text += d; });
		process.stdin.on("end", () => {
			for (const line of text.split("\n")) {
				if (!line) continue;
				const r = JSON.parse(line);
				console.log(fields.map((k) => k in r ? String(r[k]) : "-").join("\t"));
			}
		});' "$@"
}

warc_digest() {
	printf 'sha1:%s\n' "$(openssl dgst -sha1 -binary | base32)"
}

warcio_write() {	# FILE
	node "$WARCIO_DIR/write-warc.mjs" "$1"
}
