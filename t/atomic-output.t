#!/bin/sh
# Output files appear whole or not at all (wa.7, "Output files"): a writer
# killed in the middle leaves nothing under the final name and an older
# version intact; one stopped by a signal it can catch, or dying on an
# error, removes its temporary as well.
. "$(dirname "$0")/lib.sh"
w=$WA_UNIT/slow-writer
d=$tmp/out
f=$d/ranks.bin
mkdir "$d"

# The hidden temporaries of ranks.bin.
temps() { ls -A "$d" | grep -E '^\.ranks\.bin\.[A-Za-z0-9]{6}$'; }

# Starts a slow writer (25 MiB in 100 chunks, 30 ms apart) and returns
# once its temporary holds 2 MiB, so that a kill lands in the middle.  The
# signals it is sent are reset to their defaults, which a run under nohup
# would have it ignore.
start_writer() {	# SEED
	env --default-signal=HUP,TERM "$w" write "$f" 32768 100 30 "$1" >/dev/null \
		2>"$tmp/writer.err" &
	pid=$!
	i=0
	while [ $i -lt 600 ]; do
		t=$(temps | head -1)
		if [ -n "$t" ] && [ "$(stat -c %s "$d/$t" 2>/dev/null || echo 0)" -gt 2097152 ]; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

report_temps() {	# WHAT
	for t in $(temps); do
		echo "# $1 left the temporary $t ($(stat -c %s "$d/$t") bytes)"
	done
}

ok "a slow writer is under way" start_writer 1
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is $? 137 "SIGKILL stops it"
ok "after SIGKILL nothing is under the final name" test ! -e "$f"
is "$(ls "$d")" "" "nothing but hidden temporaries either"
report_temps SIGKILL
left=$(temps | head -1)
if [ -n "$left" ]; then
	exits 1 "a reader refuses the leftover temporary" "$w" check "$d/$left"
	like "$(cat "$tmp/stderr")" 'not a wa binary file \(bad magic\)$' \
		"since the header is written last"
fi
rm -f "$d"/.ranks.bin.*

ok "an uninterrupted run writes the file" "$w" write "$f" 1000 50 0 2
ok "the file verifies with both readers" "$w" check "$f"
is "$(cat "$tmp/stdout")" "50000 records" "with every record"
is "$(stat -c %s "$f")" $((64 + 400000)) "header and payload, nothing more"
is "$(temps)" "" "no temporary is left"
cp "$f" "$tmp/previous"

ok "a writer replacing it is under way" start_writer 3
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is $? 137 "SIGKILL stops it"
same_file "$f" "$tmp/previous" "after SIGKILL the previous version is intact"
report_temps SIGKILL
rm -f "$d"/.ranks.bin.*

for sig in TERM:143 HUP:129; do
	name=${sig%:*}
	ok "a writer replacing it is under way" start_writer 4
	kill -"$name" "$pid"
	wait "$pid" 2>/dev/null
	is $? "${sig#*:}" "SIG$name stops it"
	same_file "$f" "$tmp/previous" "after SIG$name the previous version is intact"
	is "$(temps)" "" "SIG$name removes the temporary"
done

exits 1 "a writer that dies on an error exits 1" "$w" write "$f" 1000 50 0 5 10
is "$(cat "$tmp/stderr")" "slow-writer: $f: dying after 10 chunks, as asked" "saying why"
same_file "$f" "$tmp/previous" "the previous version is intact"
is "$(temps)" "" "wa_die removes the temporary"

head -c 1000 "$tmp/previous" >"$d/cut.bin"
exits 1 "a tool refuses a truncated file" "$w" check "$d/cut.bin"
is "$(cat "$tmp/stderr")" \
	"slow-writer: $d/cut.bin: truncated: the header promises 400000 payload bytes, the file has 936" \
	"in one line that names the file and says what is wrong"
cp "$tmp/previous" "$d/flip.bin"
printf '\001' | dd of="$d/flip.bin" bs=1 seek=100000 conv=notrunc 2>/dev/null
exits 1 "a tool refuses a file with a changed payload byte" "$w" check "$d/flip.bin"
is "$(cat "$tmp/stderr")" "slow-writer: $d/flip.bin: payload checksum mismatch: the data is corrupt" \
	"in one line"

# A path that is no regular file is written in place: renaming over a FIFO
# (or /dev/null) would replace it with a file.
printf 'http://a.example/\t1700000000\t-\t-\nhttp://a.example/\t1700086400\t1\t-\n' \
	>"$tmp/history"
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
ok "a tool writes its -o output to a FIFO" wa-lambda -q --prior 1,7 -o "$tmp/fifo" "$tmp/history"
wait $reader
ok "which stays a FIFO" test -p "$tmp/fifo"
wa-lambda -q --prior 1,7 -o "$tmp/plain.tsv" "$tmp/history"
ok "and its reader gets the whole output" cmp "$tmp/from-fifo" "$tmp/plain.tsv"

done_testing
