#!/bin/sh
# Faults at every step: a missing or truncated input, an unsorted
# input where sorted is required, a binary file with a flipped byte, a full
# device (a 256K tmpfs, when this test may mount one; /dev/full for
# standard output) for every tool that reads or writes them.  Each must
# stop with exit 1 and a message naming the file (and its line or offset
# where there is one), and leave the previous outputs as they were, with no
# temporary file beside them.  Checks that t/wa-*.t already make (missing
# files of wa-url, wa-extract, wa-lambda, wa-invrank -I; unsorted history,
# state, overrides and rules; damaged graphs under wa-pagerank and
# wa-invrank, damaged OPIC states) are repeated only where this test adds
# the check of the previous outputs (the unsorted history and state).
. "$(dirname "$0")/lib.sh"
. "$T_DIR/fault-inputs.sh"
gen=$(script_prog gen-graph) || skip_all "gen-graph is not built (make)"
i=$tmp/in o=$tmp/out m=$tmp/full
mkdir "$i" "$o" "$m"
T=$(printf '\t')
mounted=0
trap 'if [ $mounted = 1 ]; then umount "$m" 2>/dev/null || umount -l "$m"; fi; t_cleanup' EXIT

flip() {	# FILE OFFSET: one byte changed in place
	printf '\377' | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cut_at() {	# FILE BYTES NEW
	head -c "$2" "$1" >"$3"
}
gz() { gzip -n -c "$1" >"$2"; }

# The inputs: a generated graph and its ranks, a history, a page state, a
# WARC of three pages (a gzip member each).
fault_inputs "$i" "$gen"
one=$WARC_FIRST
cut_at "$i/links.gz" $(($(wc -c <"$i/links.gz") / 2)) "$i/links.cut.gz"
sort -r "$i/imp.tsv" >"$i/imp.unsorted"
gz "$i/imp.tsv" "$i/imp.gz"
cut_at "$i/imp.gz" 300 "$i/imp.cut.gz"
cp "$i/imp.vec" "$i/imp.flip.vec" && flip "$i/imp.flip.vec" 200
cut_at "$i/imp.vec" 1000 "$i/imp.cut.vec"
cp -a "$i/g" "$i/g.flip" && flip "$i/g.flip/slice-0000" 70
cp -a "$i/g" "$i/g.cut" && cut_at "$i/g/outdeg" 100 "$i/g.cut/outdeg"
gz "$i/hist.tsv" "$i/hist.gz"
cut_at "$i/hist.gz" 1500 "$i/hist.cut.gz"
gz "$i/state.tsv" "$i/state.gz"
cut_at "$i/state.gz" 1000 "$i/state.cut.gz"
{ sed -n 2p "$i/state.tsv"; sed -n 1p "$i/state.tsv"; } >"$i/state.unsorted"
{ grep -m1 "^$(sed -n '$s/\t.*//p' "$i/hist.tsv")$T" "$i/hist.tsv"; cat "$i/hist.tsv"; } >"$i/hist.unsorted"
cut_at "$i/crawl.warc.gz" $((one + 40)) "$i/crawl.cut.gz"
cp "$i/crawl.warc.gz" "$i/crawl.flip.gz" && flip "$i/crawl.flip.gz" $((one + 60))
ok "the inputs are made" test -s "$i/crawl.warc.gz" -a -s "$i/state.tsv" -a -s "$i/opic.st" \
	-a -d "$i/g" -a -s "$i/hist.tsv"

previous_outputs "$i" "$o"

# -q and the order of the options as the tools print usage; every path
# absolute, so that the message names it in full.

# wa-url
fault wa-url "a truncated gzip input" "$i/links.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-url -q "$i/links.cut.gz"
fault wa-url "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-url -q "$1" >/dev/full' sh "$i/links.tsv"

# wa-extract: a damaged WARC leaves -p as it was; -k salvages the records
# that can be read (wa-extract(1)).
fault wa-extract "a WARC cut in its second record" "$i/crawl.cut.gz: offset $one: truncated gzip member" \
	wa-extract -q -p "$o/pages.tsv" "$i/crawl.cut.gz"
like "$(cat "$tmp/stderr")" "1 records could not be read: $o/pages.tsv is left as it was" \
	"  and says -p is left as it was"
fault wa-extract "a WARC with a flipped byte" "$i/crawl.flip.gz: offset $one: " \
	wa-extract -q -p "$o/pages.tsv" "$i/crawl.flip.gz"
exits 0 "wa-extract -k: a WARC cut in its second record is salvaged, exit 0" \
	wa-extract -k -q -p "$tmp/salvage.tsv" "$i/crawl.cut.gz"
is "$(cut -f1 "$tmp/salvage.tsv" | tr '\n' ' ')" "http://a.test/ " "  -p has the page before the cut"
like "$(cat "$tmp/stderr")" "crawl.cut.gz: offset $one: truncated gzip member" "  and the cut is reported"
exits 0 "wa-extract -k: a WARC with a flipped byte is salvaged, exit 0" \
	wa-extract -k -q -p "$tmp/salvage.tsv" "$i/crawl.flip.gz"
is "$(cut -f1 "$tmp/salvage.tsv" | tr '\n' ' ')" "http://a.test/ http://b.test/ " \
	"  -p has the pages of the other records"
fault wa-extract "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-extract -q -p "$1" "$2" >/dev/full' sh "$o/pages.tsv" "$i/crawl.warc.gz"

# wa-linkmat
fault wa-linkmat "a missing links file" "$i/nothing.tsv: No such file" \
	wa-linkmat -q -o "$o/g" "$i/nothing.tsv"
fault wa-linkmat "a truncated gzip links file" "$i/links.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-linkmat -q -o "$o/g" "$i/links.cut.gz"
fault wa-linkmat "a missing pages file" "$i/nothing.tsv: No such file" \
	wa-linkmat -q -p "$i/nothing.tsv" -o "$o/g" "$i/links.tsv"
fault wa-linkmat "a missing old graph (-u)" "$i/nothing" \
	wa-linkmat -q -u "$i/nothing" -o "$o/g" "$i/links.tsv"
fault wa-linkmat "an old graph with a flipped byte (-u)" "$i/g.flip/slice-0000: payload checksum mismatch" \
	wa-linkmat -q -u "$i/g.flip" -o "$o/g" "$i/links.tsv"
fault wa-linkmat "an old graph with a truncated file (-u)" "$i/g.cut/outdeg: truncated" \
	wa-linkmat -q -u "$i/g.cut" -o "$o/g" "$i/links.tsv"

# wa-pagerank
fault wa-pagerank "a missing graph" "$i/nothing/manifest: cannot open: No such file" \
	wa-pagerank -q -o "$o/imp.tsv" "$i/nothing"
fault wa-pagerank "--init: a vector with a flipped byte" "$i/imp.flip.vec: payload checksum mismatch" \
	wa-pagerank -q --init "$i/imp.flip.vec" -U "$o/use.tsv" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "--init: a truncated vector" "$i/imp.cut.vec: truncated" \
	wa-pagerank -q --init "$i/imp.cut.vec" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "--init: an unsorted importance" "$i/imp.unsorted:2: not sorted" \
	wa-pagerank -q --init "$i/imp.unsorted" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "--init: a truncated gzip importance" "$i/imp.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-pagerank -q --init "$i/imp.cut.gz" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "-E: an unsorted personalisation" "$i/imp.unsorted:2: not sorted" \
	wa-pagerank -q -E "$i/imp.unsorted" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "-E: a missing personalisation" "$i/nothing.tsv: No such file" \
	wa-pagerank -q -E "$i/nothing.tsv" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-pagerank -q "$1" >/dev/full' sh "$o/g"

# wa-invrank
fault wa-invrank "a missing graph" "$i/nothing/manifest: cannot open: No such file" \
	wa-invrank -q -o "$o/inv.tsv" "$i/nothing"
fault wa-invrank "a truncated graph file" "$i/g.cut/outdeg: truncated" \
	wa-invrank -q -o "$o/inv.tsv" "$i/g.cut"
fault wa-invrank "-I: an unsorted importance" "$i/imp.unsorted:2: not sorted" \
	wa-invrank -q -I "$i/imp.unsorted" -o "$o/inv.tsv" "$o/g"
fault wa-invrank "-I: a truncated gzip importance" "$i/imp.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-invrank -q -I "$i/imp.cut.gz" -o "$o/inv.tsv" "$o/g"
fault wa-invrank "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-invrank -q "$1" >/dev/full' sh "$o/g"

# wa-lambda
fault wa-lambda "a truncated gzip history" "$i/hist.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-lambda -q -o "$o/lambda.tsv" "$i/hist.cut.gz"
fault wa-lambda "an unsorted history" "$i/hist.unsorted:2: not sorted by URL" \
	wa-lambda -q --prior 1,7 -o "$o/lambda.tsv" "$i/hist.unsorted"
fault wa-lambda "-O: a missing overrides file" "$i/nothing.tsv: No such file" \
	wa-lambda -q -O "$i/nothing.tsv" -o "$o/lambda.tsv" "$i/hist.tsv"
fault wa-lambda "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-lambda -q "$1" >/dev/full' sh "$i/hist.tsv"

# wa-schedule
fault wa-schedule "a missing state" "$i/nothing.tsv: No such file" \
	wa-schedule -q -G 100 --plan "$o/freq.tsv" --summary "$o/summary.tsv" "$i/nothing.tsv"
fault wa-schedule "a truncated gzip state" "$i/state.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-schedule -q -G 100 --plan "$o/freq.tsv" --summary "$o/summary.tsv" "$i/state.cut.gz"
fault wa-schedule "an unsorted state, with --plan and --summary" "$i/state.unsorted:2: not sorted" \
	wa-schedule -q -G 100 --plan "$o/freq.tsv" --summary "$o/summary.tsv" "$i/state.unsorted"
fault wa-schedule "--overrides: a missing file" "$i/nothing.tsv: No such file" \
	wa-schedule -q -G 100 --overrides "$i/nothing.tsv" --plan "$o/freq.tsv" "$i/state.tsv"
fault wa-schedule "--cash: an unsorted file" "$i/imp.unsorted:2: not sorted" \
	wa-schedule -q -G 100 --cash "$i/imp.unsorted" --plan "$o/freq.tsv" "$i/state.tsv"
fault wa-schedule "standard output on a full device" "standard output: No space left on device" \
	sh -c 'wa-schedule -q -G 100 "$1" >/dev/full' sh "$i/state.tsv"

# wa-opic: its state is its previous output
fault wa-opic "a missing links file" "$i/nothing.tsv: No such file" \
	wa-opic -q -S "$o/opic.st" "$i/nothing.tsv"
fault wa-opic "a truncated gzip links file" "$i/links.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-opic -q -S "$o/opic.st" "$i/links.cut.gz"
fault wa-opic "-t: a missing fetch log" "$i/nothing.log: No such file" \
	wa-opic -q -S "$tmp/new.st" -t "$i/nothing.log" "$i/links.tsv"
# The state is saved after the output, so a failed write leaves it as it
# was (a rerun does not count the reads twice).
fault wa-opic "standard output on a full device" \
	"standard output: No space left on device" \
	sh -c 'wa-opic -q -S "$1" "$2" >/dev/full' sh "$o/opic.st" "$i/links.tsv"
cp "$tmp/previous/opic.st" "$o/opic.st"

# wa-partition
fault wa-partition "a missing links file" "$i/nothing.tsv: No such file" \
	wa-partition -q -n 3 -o "$o/rules.tsv" "$i/nothing.tsv"
fault wa-partition "a truncated gzip links file" "$i/links.cut.gz: truncated gzip data at byte [0-9]+" \
	wa-partition -q -n 3 -o "$o/rules.tsv" "$i/links.cut.gz"
fault wa-partition "--weights: a missing weights file" "$i/nothing.tsv: No such file" \
	wa-partition -q -n 3 --weights "$i/nothing.tsv" -o "$o/rules.tsv" "$i/links.tsv"
fault wa-partition "-P: missing previous rules" "$i/nothing.tsv: No such file" \
	wa-partition -q -n 3 -P "$i/nothing.tsv" -o "$o/rules.tsv" "$i/links.tsv"
fault wa-partition "-a: missing rules" "$i/nothing.tsv: No such file" \
	wa-partition -q -a "$i/nothing.tsv" "$i/links.tsv"

# A full device: the outputs (and their old versions) on a 256K tmpfs
# filled up.  Needs root (or a mount the test may make).
if mount -t tmpfs -o size=256k tmpfs "$m" 2>/dev/null; then
	mounted=1
	cp -a "$o/g" "$o/imp.tsv" "$o/use.tsv" "$o/inv.tsv" "$o/lambda.tsv" "$o/freq.tsv" \
		"$o/summary.tsv" "$o/opic.st" "$o/rules.tsv" "$o/pages.tsv" "$m/"
	dd if=/dev/zero of="$m/filler" bs=4k 2>/dev/null
	cp -a "$m" "$tmp/previous-full"
	FAULT_ALSO="$tmp/previous-full $m"
	is "$(df -P "$m" | awk 'NR == 2 { print $4 }')" 0 "the tmpfs is full"
	fault wa-extract "-p on a full device" "$m/pages.tsv: write failed: No space left on device" \
		wa-extract -q -p "$m/pages.tsv" "$i/crawl.warc.gz"
	fault wa-linkmat "-o on a full device" "$m/.g.[^/]*/[a-z]+: write failed: No space left on device" \
		wa-linkmat -q -p "$i/pages.tsv" -o "$m/g" "$i/links.tsv"
	fault wa-pagerank "-o and -U on a full device" "$m/(imp|use).tsv: write failed: No space left on device" \
		wa-pagerank -q -U "$m/use.tsv" -o "$m/imp.tsv" "$o/g"
	fault wa-invrank "-o on a full device" "$m/inv.tsv: write failed: No space left on device" \
		wa-invrank -q -o "$m/inv.tsv" "$o/g"
	# The vectors in temporary files on the full device, for a graph whose
	# vectors do not fit -m: an error naming TMPDIR, where mapped files
	# took a SIGBUS.  Not under valgrind, which keeps files of its own in
	# TMPDIR.
	if ! under_valgrind && gen=$(script_prog gen-graph); then
		"$gen" -n 2^14 -d 4 -x 0.2 -f none -P "$tmp/vec.pages" &&
			"$gen" -n 2^14 -d 4 | wa-linkmat -q -s 64 -p "$tmp/vec.pages" -o "$tmp/vec.g"
		fault wa-pagerank "vectors in a full TMPDIR" \
			"$m: a temporary file: cannot write [0-9]+ bytes at offset [0-9]+: No space left on device" \
			env TMPDIR="$m" wa-pagerank -q -m 400K -j 1 -U "$tmp/vec.use" -o "$tmp/vec.imp" \
			"$tmp/vec.g"
		fault wa-invrank "vectors in a full TMPDIR" \
			"$m: a temporary file: cannot write [0-9]+ bytes at offset [0-9]+: No space left on device" \
			env TMPDIR="$m" wa-invrank -q -m 400K -j 1 -o "$tmp/vec.inv" "$tmp/vec.g"
		ok "  and neither wrote an output" test ! -e "$tmp/vec.use" -a ! -e "$tmp/vec.imp" \
			-a ! -e "$tmp/vec.inv"
	fi
	fault wa-lambda "-o on a full device" "$m/lambda.tsv: write failed: No space left on device" \
		wa-lambda -q -o "$m/lambda.tsv" "$i/hist.tsv"
	fault wa-schedule "--plan and --summary on a full device" "$m/(freq|summary).tsv: write failed: No space left on device" \
		sh -c 'exec wa-schedule -q -G 100 --now 1700000000 --plan "$1" --summary "$2" "$3" >/dev/null' sh \
		"$m/freq.tsv" "$m/summary.tsv" "$i/state.tsv"
	fault wa-opic "its state on a full device" "$m/opic.st: write failed: No space left on device" \
		sh -c 'exec wa-opic -q -S "$1" "$2" >/dev/null' sh "$m/opic.st" "$i/links.tsv"
	fault wa-partition "-o on a full device" "$m/rules.tsv: write failed: No space left on device" \
		wa-partition -q -n 3 -o "$m/rules.tsv" "$i/links.tsv"
else
	echo "# no tmpfs could be mounted (not root?): the full-device cases of -o are skipped"
fi

# Weights past the last URL are read too: out of order, they are an error.
awk -F '\t' -v OFS='\t' '{ print $1, NR % 7 + 1 }' "$i/imp.tsv" | sort -r >"$i/weights.unsorted"
fault wa-partition "--weights: unsorted weights" \
	"$i/weights.unsorted:2: not sorted" \
	wa-partition -q -n 3 --weights "$i/weights.unsorted" -o "$o/rules.tsv" "$i/links.tsv"

done_testing
