#!/bin/sh
# Bad input to the tools that read TSV: a WARC, another tool's stream or a
# CR LF file given where a stream is expected is refused with exit 1 and
# one line naming the file and its first line, and the output of the run
# before stays as it was, byte for byte.  Numbers: sums that overflow a
# double (each weight finite), a start vector of another graph of the
# same size, a clock past what a WARC-Date holds.
. "$(dirname "$0")/lib.sh"
cd "$tmp"
G=$TESTDATA/graphs

# A WARC as wa-fetch writes it (gzip, one member a record): the fuzz seed
# less its mode byte.
tail -c +2 "$TESTDATA/fuzz/warc/gzip-members" >warc.gz
gzip -dc warc.gz | head -1 | grep -q '^WARC/1' 
t_result $? "the WARC sample starts with a WARC version line"

# The inputs of a good run, and the outputs each tool leaves.
ok "a graph" wa-linkmat -q -p "$G/linkmat-sites.pages.tsv" -o g "$G/linkmat-sites.links.tsv"
ok "importance" wa-pagerank -q -o pr.tsv -b pr.vec g
ok "usefulness" wa-invrank -q -I pr.tsv -o ir.tsv g
printf 'http://a.example/\t%s\t%s\t-\n' 0 - 86400 1 172800 0 >hist.tsv
ok "change rates" wa-lambda -q --prior 1,7 -o lambda.tsv hist.tsv
printf 'http://a.example/\thtml\t0.5\t1\t0.1\t100000\t-\nhttp://b.example/\t-\t0.5\t-\t-\t-\t-\n' >state.tsv
ok "a schedule" wa-schedule -q -G 100 --now 200000 --plan plan.tsv --summary summary.tsv state.tsv
ok "an OPIC state" wa-opic -q -S opic.st "$G/linkmat-cycle2.links.tsv"
ok "partition rules" wa-partition -q -n 2 -o rules.tsv "$G/rank-cycles.links.tsv"
cp rules.tsv other.tsv
sed 's/$/\r/' "$G/rank-cycles.links.tsv" >crlf.tsv
echo not a WARC yet >fetch.warc
mkdir before
cp -r g fetch.warc pr.tsv pr.vec ir.tsv lambda.tsv plan.tsv summary.tsv opic.st rules.tsv before/

kept() {	# MSG FILES...: the outputs of the good runs, unchanged
	msg=$1; shift
	for f in "$@"; do
		if [ -d "before/$f" ]; then
			diff -r "before/$f" "$f" >/dev/null || { t_result 1 "$msg: $f changed"; return; }
		else
			cmp -s "before/$f" "$f" || { t_result 1 "$msg: $f changed"; return; }
		fi
	done
	t_result 0 "$msg"
}

# refused NAME OUTPUTS FIRST-LINE-REGEX CMD...: exit 1, one line on
# stderr naming the bad file and its first line, the outputs kept.
refused() {
	r_name=$1 r_outs=$2 r_want=$3; shift 3
	exits 1 "$r_name: exit 1" "$@"
	is "$(wc -l <"$tmp/stderr" | tr -d ' ')" 1 "$r_name: one line on stderr"
	like "$(cat "$tmp/stderr")" "$r_want" "$r_name: names the file and its first line"
	# shellcheck disable=SC2086
	kept "$r_name: the output before is kept" $r_outs
}

for bad in warc.gz crlf.tsv other.tsv; do
	case $bad in
	warc.gz) why="$bad:1: CR LF line end" ;;
	crlf.tsv) why="$bad:1: CR LF line end" ;;
	*) why="$bad:1: " ;;
	esac
	refused "wa-linkmat, $bad for links" g "$why" wa-linkmat -q -o g "$bad"
	refused "wa-linkmat, $bad for pages" g "$why" \
		wa-linkmat -q -p "$bad" -o g "$G/linkmat-sites.links.tsv"
	refused "wa-pagerank -E $bad" "pr.tsv pr.vec" "$why" wa-pagerank -q -E "$bad" -o pr.tsv -b pr.vec g
	refused "wa-pagerank --subscriptions $bad" "pr.tsv pr.vec" "$why" \
		wa-pagerank -q --subscriptions "$bad" -o pr.tsv -b pr.vec g
	refused "wa-pagerank --init $bad" "pr.tsv pr.vec" "$why" \
		wa-pagerank -q --init "$bad" -o pr.tsv -b pr.vec g
	refused "wa-invrank -I $bad" ir.tsv "$why" wa-invrank -q -I "$bad" -o ir.tsv g
	refused "wa-lambda $bad" lambda.tsv "$why" wa-lambda -q -o lambda.tsv "$bad"
	refused "wa-lambda -O $bad" lambda.tsv "$why" wa-lambda -q -O "$bad" -o lambda.tsv hist.tsv
	refused "wa-schedule $bad" "plan.tsv summary.tsv" "$why" \
		wa-schedule -q -G 100 --now 200000 --plan plan.tsv --summary summary.tsv "$bad"
	refused "wa-opic $bad" opic.st "$why" wa-opic -q -S opic.st "$bad"
	refused "wa-partition $bad" rules.tsv "$why" wa-partition -q -n 2 -o rules.tsv "$bad"
	refused "wa-partition --urls $bad" rules.tsv "$why" wa-partition -q -n 2 --urls -o rules.tsv "$bad"
	refused "wa-partition --weights $bad" rules.tsv "$why" \
		wa-partition -q -n 2 --weights "$bad" -o rules.tsv "$G/rank-cycles.links.tsv"
	exits 1 "wa-url, $bad: exit 1" sh -c 'wa-url <"$1"' sh "$bad"
done
# wa-fetch logs a bad URL among good ones as bad-url; a list with none
# is the wrong file.
printf '%s\n' 'not a url' '<html>' >no-urls.txt
for bad in warc.gz crlf.tsv no-urls.txt; do
	refused "wa-fetch, $bad for URLs" fetch.warc "$bad:1: " wa-fetch -q -o fetch.warc "$bad"
done

# Another tool's numbers where URLs go: wa-opic would read wa-pagerank's
# stream as links to pages named by the scores.
refused "wa-opic, an importance stream" opic.st "pr.tsv:1: not a URL in column 2" \
	wa-opic -q -S opic.st pr.tsv
refused "wa-linkmat, an importance stream" g "pr.tsv:1: not a URL in column 2" wa-linkmat -q -o g pr.tsv

# An empty input is no error: a cycle may have nothing new.
: >empty.tsv
ok "an empty links stream is a graph of no pages" wa-linkmat -q -o g0 empty.tsv

# Each weight finite, their sum past DBL_MAX (1.8e308): normalised by the
# sum, every page got 0 or NaN (-nan written for every page).
cut -f1 pr.tsv | LC_ALL=C sort | sed 's/$/\t1e308/' >huge.tsv
refused "wa-pagerank -E, weights summing past DBL_MAX" "pr.tsv pr.vec" "huge.tsv:2: .*sum" \
	wa-pagerank -q -E huge.tsv -o pr.tsv -b pr.vec g
refused "wa-pagerank --init, scores summing past DBL_MAX" "pr.tsv pr.vec" "huge.tsv:2: .*sum" \
	wa-pagerank -q --init huge.tsv -o pr.tsv -b pr.vec g
refused "wa-invrank -I, importance summing past DBL_MAX" ir.tsv "huge.tsv:2: .*sum" \
	wa-invrank -q -I huge.tsv -o ir.tsv g
{ cut -f1 "$G/rank-cycles.links.tsv"; cut -f2 "$G/rank-cycles.links.tsv"; } | LC_ALL=C sort -u |
	sed 's/$/\t1e308/' >huge-w.tsv
refused "wa-partition --weights, weights summing past DBL_MAX" rules.tsv "huge-w.tsv:2: .*sum" \
	wa-partition -q -n 2 --weights huge-w.tsv -o rules.tsv "$G/rank-cycles.links.tsv"
printf 'http://a.example/\tnan\n' >nan.tsv
refused "wa-pagerank -E, NaN" "pr.tsv pr.vec" "nan.tsv:1: bad score 'nan'" \
	wa-pagerank -q -E nan.tsv -o pr.tsv -b pr.vec g
printf 'http://a.example/\tinf\n' >inf.tsv
refused "wa-lambda -O, infinity" lambda.tsv "inf.tsv:1: lambda is not a positive number" \
	wa-lambda -q -O inf.tsv -o lambda.tsv hist.tsv

# --init with a vector of another graph of the same size: the ids are of
# other URLs.  Two graphs of two pages each.
printf 'http://a.test/\thttp://b.test/\nhttp://b.test/\thttp://a.test/\n' >ab.tsv
printf 'http://c.test/\thttp://d.test/\nhttp://d.test/\thttp://c.test/\n' >cd.tsv
ok "graph ab" wa-linkmat -q -o gab ab.tsv
ok "graph cd" wa-linkmat -q -o gcd cd.tsv
ok "a vector of ab" wa-pagerank -q -b ab.vec -o ab.tsv.out gab
ok "which starts ab again" wa-pagerank -q --init ab.vec -o ab.tsv.out gab
ok "importance of cd" wa-pagerank -q -o cd.out gcd
cp cd.out before/
refused "wa-pagerank --init, a vector of another graph of the same size" cd.out \
	"ab.vec: a vector of another graph of 2 pages" wa-pagerank -q --init ab.vec -o cd.out gcd
# A vector written before the fingerprint (aux[0] 0) is still read.
"$PY" - ab.vec ab0.vec <<'X'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
b[32:40] = bytes(8)
b[60:64] = struct.pack("<I", zlib.crc32(bytes(b[:60])))
open(sys.argv[2], "wb").write(bytes(b))
X
ok "a vector without a fingerprint starts any graph of its size" \
	wa-pagerank -q --init ab0.vec -o cd.out gcd

# The zstd processes of GNU sort count in -m: 16M of budget is too little
# for them (they took 93 MiB under wa-linkmat -m 16M), and a share that
# holds them gives sort -S the rest.  A sort on the PATH that logs its
# arguments, then runs the real one.
real_sort=$(command -v sort)
mkdir logbin
cat >logbin/sort <<X
#!/bin/sh
echo "\$*" >>"$tmp/sort.log"
exec "$real_sort" "\$@"
X
chmod +x logbin/sort
: >sort.log
ok "wa-linkmat -m 16M with a logged sort" \
	env PATH="$tmp/logbin:$PATH" wa-linkmat -q -m 16M -o gm "$G/linkmat-sites.links.tsv"
is "$(grep -c . sort.log)" 2 "two sorts ran"
is "$(grep -c compress-program sort.log)" 0 "neither with zstd under -m 16M"
if command -v zstd >/dev/null; then
	: >sort.log
	ok "wa-linkmat -m 2G with a logged sort" \
		env PATH="$tmp/logbin:$PATH" wa-linkmat -q -m 2G -o gm2 "$G/linkmat-sites.links.tsv"
	# The node lines take three eighths of the budget, less than 768 MiB;
	# 104 of it go to zstd.
	like "$(cat sort.log)" "--compress-program=zstd --batch-size=8" \
		"with 2G, the sort of the node lines has zstd"
	is "$(awk '/zstd/ { sub(/K$/, "", $2); if ($2 + 104 * 1024 > 768 * 1024) print }' sort.log)" "" \
		"and -S within its share less the 104 MiB of zstd"
fi

# A -b vector holding an infinity: each value must be finite.
"$PY" - pr.vec inf.vec <<'X'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
b[64:72] = struct.pack("<d", float("inf"))
b[56:60] = struct.pack("<I", zlib.crc32(bytes(b[64:])))
b[60:64] = struct.pack("<I", zlib.crc32(bytes(b[:60])))
open(sys.argv[2], "wb").write(bytes(b))
X
refused "wa-pagerank --init, a vector holding an infinity" "pr.tsv pr.vec" \
	"inf.vec: value 0 is negative, infinite or not a number" \
	wa-pagerank -q --init inf.vec -o pr.tsv -b pr.vec g

# --now: a WARC-Date has four digits of year (9999-12-31T23:59:59Z is
# 253402300799).
exits 0 "--now 9999-12-31T23:59:59Z" wa-schedule -q -G 100 --now 253402300799 state.tsv
exits 2 "--now one second later is a usage error" wa-schedule -q -G 100 --now 253402300800 state.tsv
like "$(cat "$tmp/stderr")" "after 9999-12-31T23:59:59Z" "which says why"
exits 2 "wa-fetch parses --now the same way" wa-fetch --now 253402300800 empty.tsv

done_testing
