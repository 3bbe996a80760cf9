# Helpers for the wa-fetch tests, sourced after t/lib.sh.
#
#   sha1_b32 FILE   the WARC payload digest of FILE (sha1:BASE32)
#   mtime FILE      its modification time, Unix seconds
#   col N           column N of the TSV on stdin
#   row URL         the fetch log row of URL in $tmp/log
#   gaps NAME       the gaps between consecutive requests in NAME's log, in ms
sha1_b32() { printf 'sha1:%s\n' "$(openssl dgst -sha1 -binary <"$1" | base32)"; }
mtime() { stat -c %Y "$1"; }
col() { cut -f "$1"; }
row() { awk -F '\t' -v u="$1" '$1 == u' "$tmp/log"; }
gaps() {
	awk '{ t = $1 * 1000; if (NR > 1) printf "%d\n", t - prev; prev = t }' \
	    "$tmp/nginx-$1/logs/access.log"
}
