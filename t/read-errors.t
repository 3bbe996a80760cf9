#!/bin/sh
# Read errors: every input of every tool
# that fails with EIO, at its first byte or after valid rows, stops the
# tool with exit 1 and a message naming the file, and leaves the previous
# outputs as they were, with no temporary file beside them (t/faults.t
# covers the other faults).
#
# The errors are the kernel's own, no mock: reading /proc/self/mem at
# offset 0 (an address never mapped) fails with EIO, so a symlink to it
# is an input, or a file of a graph directory, that fails at once.  For an
# error after valid data, t/eio-after (written below) maps the data in
# front of a page past the end of its backing file and gives the tool, on
# stdin, its own /proc/self/mem open at the data: the tool reads the rows,
# then EIO where the data ends.
. "$(dirname "$0")/lib.sh"
. "$T_DIR/fault-inputs.sh"
gen=$(script_prog gen-graph) || skip_all "gen-graph is not built (make)"
head -c 1 /proc/self/mem >/dev/null 2>&1 && skip_all "reading /proc/self/mem at 0 does not fail here"
i=$tmp/in o=$tmp/out
mkdir "$i" "$o"
eio=$i/eio
ln -s /proc/self/mem "$eio"

cat >"$tmp/eio-after.py" <<'EOF'
# eio-after DATA CMD...: runs CMD with a standard input that reads the
# bytes of DATA, then fails with EIO.
import ctypes, os, subprocess, sys, tempfile
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
    ctypes.c_int, ctypes.c_long]
data = open(sys.argv[1], 'rb').read()
page = os.sysconf('SC_PAGESIZE')
size = -(-len(data) // page) * page
pad = size - len(data)
back = tempfile.TemporaryFile()
back.write(bytes(pad) + data)
back.flush()
# One page more than the file: reading it (SIGBUS for a load) makes
# /proc/self/mem fail with EIO right after the data.
PROT_READ, MAP_SHARED = 1, 1
addr = libc.mmap(None, size + page, PROT_READ, MAP_SHARED, back.fileno(), 0)
if addr is None or addr == ctypes.c_void_p(-1).value:
    sys.exit('eio-after: mmap: ' + os.strerror(ctypes.get_errno()))
mem = os.open('/proc/self/mem', os.O_RDONLY)
os.lseek(mem, addr + pad, os.SEEK_SET)
sys.exit(subprocess.call(sys.argv[2:], stdin=mem))
EOF
eio_after() { "$PY" "$tmp/eio-after.py" "$@"; }

# The inputs of t/faults.t (t/fault-inputs.sh), a fetch list and rules.
fault_inputs "$i" "$gen"
# A fetch list whose addresses wa-fetch refuses (private, no
# --allow-private): were it to go on, it would connect nowhere.
for k in 1 2 3; do echo "http://$(t_addr 1):9/p$k"; done >"$i/fetch.list"
ok "the inputs are made" test -s "$i/crawl.warc.gz" -a -s "$i/state.tsv" -a -s "$i/opic.st" \
	-a -d "$i/g" -a -s "$i/hist.tsv"
ok "eio-after gives the data, then EIO" \
	sh -c '! "$1" "$2" "$3" cat >"$4" 2>"$5" && cmp -s "$3" "$4" && grep -q "Input/output error" "$5"' \
	sh "$PY" "$tmp/eio-after.py" "$i/links.tsv" "$tmp/copy" "$tmp/copy.err"

previous_outputs "$i" "$o"
EIO="read error: Input/output error"

# EIO at the first byte, every input of every tool.
fault wa-url "an input" "$eio: $EIO" wa-url -q "$eio"
fault wa-extract "a WARC" "$eio: read error: Input/output error" \
	wa-extract -q -p "$o/pages.tsv" "$eio"
fault wa-fetch "the URL list" "$eio: $EIO" wa-fetch -q -o "$tmp/fetch.warc.gz" "$eio"
fault wa-linkmat "the links" "$eio: $EIO" wa-linkmat -q -o "$o/g" "$eio"
fault wa-linkmat "-p: the pages" "$eio: $EIO" wa-linkmat -q -p "$eio" -o "$o/g" "$i/links.tsv"
fault wa-pagerank "-E: the personalisation" "$eio: $EIO" \
	wa-pagerank -q -E "$eio" -U "$o/use.tsv" -o "$o/imp.tsv" "$o/g"
fault wa-pagerank "--init: the importance" "$eio: $EIO" \
	wa-pagerank -q --init "$eio" -b "$o/imp.vec" -o "$o/imp.tsv" "$o/g"
fault wa-invrank "-I: the importance" "$eio: $EIO" wa-invrank -q -I "$eio" -o "$o/inv.tsv" "$o/g"
fault wa-lambda "the history" "$eio: $EIO" wa-lambda -q -o "$o/lambda.tsv" "$eio"
fault wa-lambda "-O: the overrides" "$eio: $EIO" wa-lambda -q -O "$eio" -o "$o/lambda.tsv" "$i/hist.tsv"
fault wa-schedule "the state" "$eio: $EIO" \
	wa-schedule -q -G 100 --plan "$o/freq.tsv" --summary "$o/summary.tsv" "$eio"
fault wa-schedule "--cash" "$eio: $EIO" \
	wa-schedule -q -G 100 --cash "$eio" --plan "$o/freq.tsv" "$i/state.tsv"
fault wa-schedule "--overrides" "$eio: $EIO" \
	wa-schedule -q -G 100 --overrides "$eio" --plan "$o/freq.tsv" "$i/state.tsv"
fault wa-opic "the links" "$eio: $EIO" wa-opic -q -S "$o/opic.st" "$eio"
fault wa-opic "the state" "$eio: $EIO" wa-opic -q -S "$eio" "$i/links.tsv"
fault wa-opic "-t: the fetch log" "$eio: $EIO" wa-opic -q -S "$tmp/new.st" -t "$eio" "$i/links.tsv"
is "$(ls "$tmp" | grep new.st)" "" "  and no new state, under its name or another"
fault wa-partition "the links" "$eio: $EIO" wa-partition -q -n 3 -o "$o/rules.tsv" "$eio"
fault wa-partition "--weights: the weights" "$eio: $EIO" \
	wa-partition -q -n 3 --weights "$eio" -o "$o/rules.tsv" "$i/links.tsv"
fault wa-partition "-P: the previous rules" "$eio: $EIO" \
	wa-partition -q -n 3 -P "$eio" -o "$o/rules.tsv" "$i/links.tsv"
fault wa-partition "-a: the rules" "$eio: $EIO" wa-partition -q -a "$eio" "$i/links.tsv"
fault wa-partition "-a: the URLs" "$eio: $EIO" wa-partition -q -a "$o/rules.tsv" "$eio"

# A graph whose file fails: each file the tool reads, in turn.
bad_graph() {	# FILE: $i/bad, the graph $i/g with FILE failing
	rm -rf "$i/bad"
	cp -a "$i/g" "$i/bad"
	ln -sf "$eio" "$i/bad/$1"
}
last_slice=$(cd "$i/g" && ls slice-* | tail -n 1)
# Under valgrind, whose start costs a second a run, the slices only.
rank_files="manifest outdeg indeg urlid urls" inv_files="manifest outdeg indeg urlid urls types"
old_files="manifest outdeg urloff urls types"
under_valgrind && rank_files= inv_files= old_files=
for f in $rank_files slice-0000 $last_slice; do
	bad_graph $f
	fault wa-pagerank "the graph's $f" "$i/bad/$f: $EIO" \
		wa-pagerank -q -U "$o/use.tsv" -b "$o/imp.vec" -o "$o/imp.tsv" "$i/bad"
done
for f in $inv_files slice-0000 $last_slice; do
	bad_graph $f
	fault wa-invrank "the graph's $f" "$i/bad/$f: $EIO" \
		wa-invrank -q -b "$o/inv.vec" -o "$o/inv.tsv" "$i/bad"
done
for f in $old_files slice-0000 $last_slice; do
	bad_graph $f
	fault wa-linkmat "-u: the old graph's $f" "$i/bad/$f: $EIO" \
		wa-linkmat -q -u "$i/bad" -o "$o/g" "$i/links.tsv"
done

# EIO after valid rows, on standard input.
STDIN="stdin: $EIO"
fault wa-url "rows, then EIO" "$STDIN" eio_after "$i/links.tsv" wa-url -q
is "$(wc -l <"$tmp/stdout")" "$(wc -l <"$i/links.tsv")" "  the rows before it are written"
fault wa-url "gzip rows, then EIO" "$STDIN" eio_after "$i/links.gz" wa-url -q
fault wa-extract "WARC records, then EIO" "stdin: read error: Input/output error" \
	eio_after "$i/crawl.warc.gz" wa-extract -q -p "$tmp/salvage.tsv"
fault wa-fetch "URLs, then EIO" "$STDIN" eio_after "$i/fetch.list" wa-fetch -q -o "$tmp/fetch.warc.gz"
fault wa-linkmat "links, then EIO" "$STDIN" \
	eio_after "$i/links.tsv" wa-linkmat -q -p "$i/pages.tsv" -o "$o/g"
fault wa-linkmat "gzip links, then EIO" "$STDIN" eio_after "$i/links.gz" wa-linkmat -q -o "$o/g"
fault wa-lambda "a history, then EIO" "$STDIN" eio_after "$i/hist.tsv" wa-lambda -q -o "$o/lambda.tsv"
fault wa-schedule "a state, then EIO" "$STDIN" \
	eio_after "$i/state.tsv" wa-schedule -q -G 100 --plan "$o/freq.tsv" --summary "$o/summary.tsv"
fault wa-opic "links, then EIO" "$STDIN" eio_after "$i/links.tsv" wa-opic -q -S "$o/opic.st"
fault wa-partition "links, then EIO" "$STDIN" \
	eio_after "$i/links.tsv" wa-partition -q -n 3 -o "$o/rules.tsv"
fault wa-partition "-a: URLs, then EIO" "$STDIN" \
	eio_after "$i/links.tsv" wa-partition -q -a "$o/rules.tsv"
ok "no WARC was left by wa-fetch" test ! -e "$tmp/fetch.warc.gz"

done_testing
