#!/bin/sh
# The TSV reader of src/lib/tsv.c: rows, gzip, rejections with FILE:LINE,
# sortedness, and streams longer than its buffer.
. "$(dirname "$0")/lib.sh"
dump=$WA_UNIT/tsv-dump
cd "$tmp"

printf 'a\t1\nb\t2\nc\t3\n' >plain.tsv
exits 0 "a plain file is read" "$dump" -c 2 plain.tsv
same_file stdout - "three rows, two fields each" <<'EOF2'
1	[a][1]
2	[b][2]
3	[c][3]
rows 3 rejected 0
EOF2
cp stdout plain.dump

gzip -c plain.tsv >plain.tsv.gz
exits 0 "a gzip file is read" "$dump" -c 2 plain.tsv.gz
same_file stdout plain.dump "gzip gives the same rows as plain text"

{ printf 'a\t1\n' | gzip -c; printf 'b\t2\nc\t3\n' | gzip -c; } >multi.gz
exits 0 "a multi-member gzip file is read" "$dump" -c 2 multi.gz
same_file stdout plain.dump "every gzip member is read"

"$dump" -c 2 <plain.tsv.gz >stdout 2>stderr
same_file stdout plain.dump "gzip on stdin is detected"

printf 'a\t1\nb\t2\nc\t3' >nonl.tsv
exits 0 "a last line without newline is read" "$dump" -c 2 nonl.tsv
same_file stdout plain.dump "the last line counts"

: >empty.tsv
exits 0 "an empty file is read" "$dump" empty.tsv
is "$(cat stdout)" "rows 0 rejected 0" "an empty file has no rows"

printf 'a\t1\nb\nc\t3\td\n\nx\t\t\n' >cols.tsv
exits 0 "rows with bad column counts do not stop the reader" "$dump" -c 2 -C 2 cols.tsv
same_file stdout - "only the good rows come out" <<'EOF2'
1	[a][1]
rows 1 rejected 4
EOF2
same_file stderr - "each rejected row is named with file and line" <<'EOF2'
tsv-dump: cols.tsv:2: found 1 column, expected 2
tsv-dump: cols.tsv:3: found 3 columns, expected 2
tsv-dump: cols.tsv:4: empty line
tsv-dump: cols.tsv:5: found 3 columns, expected 2
tsv-dump: cols.tsv: 4 lines rejected
EOF2

exits 0 "appended columns are accepted without a maximum" "$dump" -c 2 cols.tsv
like "$(cat stdout)" '^3	\[c\]\[3\]\[d\]$' "a third column is kept"

printf 'a\t1\nb\0x\t2\nc\t3\r\nd\t4\n' >bytes.tsv
exits 0 "NUL and CR rows are rejected" "$dump" -c 2 bytes.tsv
same_file stderr - "NUL byte and carriage return are named" <<'EOF2'
tsv-dump: bytes.tsv:2: NUL byte at offset 1
tsv-dump: bytes.tsv:3: CR LF line end (lines end in \n only)
tsv-dump: bytes.tsv: 2 lines rejected
EOF2
is "$(cut -f1 stdout | tr '\n' ' ')" "1 4 rows 2 rejected 2 " "lines 1 and 4 remain, numbered as in the file"

printf 'http://a/\t1\nhttp://b /\t2\nhttp://c/\377\t3\nhttp://d/\303\244\t4\n\t5\nhttp://e/\001\t6\nhttp://f/\355\240\200\t7\nhttp://g/\300\257\t8\n' >urls.tsv
exits 0 "bad URL columns are rejected" "$dump" -u 1 urls.tsv
same_file stderr - "each URL fault is named" <<'EOF2'
tsv-dump: urls.tsv:2: URL in column 1 has a space or control byte at offset 8
tsv-dump: urls.tsv:3: URL in column 1 has invalid UTF-8 at offset 9
tsv-dump: urls.tsv:5: empty URL in column 1
tsv-dump: urls.tsv:6: URL in column 1 has a space or control byte at offset 9
tsv-dump: urls.tsv:7: URL in column 1 has invalid UTF-8 at offset 9
tsv-dump: urls.tsv: 6 lines rejected (the first ones are shown above)
EOF2
is "$(cut -f1 stdout | tr '\n' ' ')" "1 4 rows 2 rejected 6 " "valid UTF-8 URLs pass"

exits 1 "strict mode stops at the first bad row" "$dump" -S -u 1 urls.tsv
is "$(cat stderr)" "tsv-dump: urls.tsv:2: URL in column 1 has a space or control byte at offset 8" \
	"strict mode names the row"

# The URL check runs a word at a time: a bad byte is found in every
# position of a word and of the tail, and only there.
awk 'BEGIN { u = "http://example.org/abcdefghijklmn"
	for (k = 0; k < 34; k++) {
		printf "%s\037%s\t%d\n%s %s\t%d\n%s\177%s\t%d\n%s\tok\n",
		    substr(u, 1, k), substr(u, k + 2), k, substr(u, 1, k), substr(u, k + 2), k,
		    substr(u, 1, k), substr(u, k + 2), k, u
	} }' >pos.tsv
exits 0 "bad bytes at every offset are rejected" "$dump" -u 1 pos.tsv
is "$(cut -f1 stdout | tr '\n' ' ')" "$(seq 4 4 136 | tr '\n' ' ')rows 34 rejected 102 " \
	"the 102 bad rows are rejected, the 34 good ones kept"
bad=
for k in 0 6 7 8 9 15 16 17 31 32 33; do
	for b in 1 2 3; do
		sed -n "$((4 * k + b))p" pos.tsv >one.tsv
		"$dump" -S -u 1 one.tsv >/dev/null 2>one.err
		grep -q "has a space or control byte at offset $k\$" one.err || bad="$bad $k/$b"
	done
done
is "$bad" "" "a bad byte is named at its offset in a word and in the tail"

printf 'a\t1\nb\t2\nb\t3\nd\t4\n' >dup.tsv
exits 0 "repeated keys pass a non-unique sort check" "$dump" -s 1 dup.tsv
exits 1 "repeated keys fail a unique sort check" "$dump" -s 1 -U dup.tsv
like "$(cat stderr)" "^tsv-dump: dup.tsv:3: not sorted: column 1 'b' repeats 'b' on the line before" \
	"the repeated key is named with its line"

printf 'a\t1\nc\t2\nb\t3\n' >unsorted.tsv
exits 1 "unsorted input stops the reader" "$dump" -s 1 unsorted.tsv
like "$(cat stderr)" "^tsv-dump: unsorted.tsv:3: not sorted: column 1 'b' sorts before 'c'" \
	"the first line out of order is named"
printf 'http://a/\nhttp://a/b\nhttp://a/b/\nhttp://a/b0\nhttp://a/b?q\nhttp://a/b\303\244\n' >bytes-order.tsv
exits 0 "byte order is the sort order (C locale)" "$dump" -s 1 -U bytes-order.tsv
LC_ALL=C sort -c -t "$(printf '\t')" -k1,1 bytes-order.tsv
is $? 0 "sort(1) agrees that the file is sorted"

i=1; : >many.tsv
while [ $i -le 8 ]; do printf 'x\n' >>many.tsv; i=$((i + 1)); done
printf 'a\t1\n' >>many.tsv
exits 0 "many bad rows" "$dump" -c 2 many.tsv
is "$(wc -l <stderr)" 6 "the first five are shown, then the count"
like "$(tail -1 stderr)" "many.tsv: 8 lines rejected \(the first ones are shown above\)" "the count names all eight"

printf 'short\t1\n%0200d\t2\nnext\t3\n' 0 >long.tsv
exits 0 "an over-long line is skipped" "$dump" -c 2 -l 100 long.tsv
is "$(cat stderr | head -1)" "tsv-dump: long.tsv:2: line longer than 100 bytes" "the long line is named"
is "$(cut -f1 stdout | tr '\n' ' ')" "1 3 rows 2 rejected 1 " "the line after it keeps its number"

awk 'BEGIN { printf "a\t1\n"; for (i = 0; i < 3000000; i++) printf "x"; printf "\t2\nz\t3\n" }' >huge.tsv
exits 0 "a 3 MB line under the default 1 MiB limit" "$dump" -c 2 huge.tsv
is "$(cut -f1 stdout | tr '\n' ' ')" "1 3 rows 2 rejected 1 " "is skipped whole"

# 300000 rows of growing length cross the 1 MiB block many times.
awk 'BEGIN { for (i = 1; i <= 300000; i++) printf "k%07d\t%s\n", i, substr("abcdefghijklmnopqrstuvwxyz", 1, i % 27) }' >big.tsv
awk -F '\t' '{ printf "%d\t[%s][%s]\n", NR, $1, $2 } END { printf "rows %d rejected 0\n", NR }' big.tsv >big.want
exits 0 "a stream of 300000 rows" "$dump" -c 2 -s 1 -U big.tsv
same_file stdout big.want "every row arrives intact across block boundaries"
gzip -c big.tsv >big.tsv.gz
"$dump" -c 2 -s 1 -U big.tsv.gz >stdout 2>stderr
same_file stdout big.want "and through gzip"

head -c 1000 big.tsv.gz >cut.gz
exits 1 "truncated gzip data is an error" "$dump" cut.gz
like "$(cat stderr)" "^tsv-dump: cut.gz: truncated gzip data at byte 1000$" "the message says truncated"
{ head -c 500 big.tsv.gz; printf 'garbage-garbage-garbage'; tail -c +524 big.tsv.gz; } >bad.gz
exits 1 "corrupt gzip data is an error" "$dump" bad.gz
like "$(cat stderr)" "^tsv-dump: bad.gz: corrupt gzip data near byte [0-9]+: " "the message says corrupt and where"

# Blocks of lines split on their own (tsv_next_block, tsv_split), as
# wa-linkmat's threads read: the same rows, messages and status as
# tsv_next, whatever the size of the blocks.  Under valgrind, two sizes
# and not the 300000 rows.
set -- "-c 2 plain.tsv" "-c 2 plain.tsv.gz" "-c 2 multi.gz" "-c 2 nonl.tsv" "empty.tsv" \
    "-c 2 -C 2 cols.tsv" "-c 2 cols.tsv" "-c 2 bytes.tsv" "-u 1 urls.tsv" "-S -u 1 urls.tsv" \
    "-u 1 pos.tsv" "-c 2 many.tsv" "-c 2 -l 100 long.tsv" "-c 2 huge.tsv" "cut.gz" "bad.gz"
sizes="1 7 100 65536"
if under_valgrind; then
	sizes="7 65536"
else
	set -- "$@" "-c 2 big.tsv" "-c 2 big.tsv.gz"
fi
for args in "$@"; do
	# shellcheck disable=SC2086
	"$dump" $args >want.out 2>want.err
	want=$?
	diffs=
	for b in $sizes; do
		# shellcheck disable=SC2086
		"$dump" -b $b $args >got.out 2>got.err
		got=$?
		{ [ $got = $want ] && cmp -s got.out want.out && cmp -s got.err want.err; } ||
			diffs="$diffs $b"
	done
	is "$diffs" "" "blocks of lines: $args as tsv_next reads it"
done

exits 1 "a missing file is an error" "$dump" nosuch.tsv
is "$(cat stderr)" "tsv-dump: nosuch.tsv: No such file or directory" "it names the file"

done_testing
