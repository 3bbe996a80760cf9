# cycle-lib.sh: what wa-cycle and wa-dist share, sourced by both: finding
# the tools, and stopping the processes a cycle started when the script is
# told to stop.  It sits beside them in the source tree and in
# PREFIX/share/wa once installed.

# tools_on_path DIR: puts the tools first on PATH: WA_BIN if set (cycle.mk
# reads it too), else DIR itself when the scripts are installed beside the
# tools (PREFIX/bin), else the source tree's bin/ (DIR is src/cycle);
# otherwise PATH stays as it is.
tools_on_path() {
	if [ -n "${WA_BIN:-}" ]; then
		PATH=$WA_BIN:$PATH
	elif [ -x "$1/wa-fetch" ]; then
		PATH=$1:$PATH
	elif [ -x "$1/../../bin/wa-fetch" ]; then
		PATH=$(cd "$1/../../bin" && pwd):$PATH
	fi
	export PATH
}

# descendants PID: the processes under PID, from /proc (the fields after
# the command name, which may hold blanks, start with the state and the
# parent).
descendants() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{ pid = $1; sub(/^.*\) /, ""); parent[pid] = $2 }
		END {
			want[root] = 1
			do {
				more = 0
				for (p in parent)
					if (!(p in want) && (parent[p] in want)) { want[p] = 1; more = 1 }
			} while (more)
			for (p in want) if (p != root) print p
		}'
}

# running PID: whether PID runs (a zombie whose new parent does not reap
# it does not).
running() {
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "${st%% *}" != Z ]
}

# stop_descendants: sends SIGTERM to every process this shell started,
# which make and the tools take as a stop (wa-fetch keeps its WARC and log
# consistent), and returns when all have exited; false if there was none.
# SIGINT would not do: the shell starts a command in the background with
# SIGINT ignored.
stop_descendants() {
	sd_pids=$(descendants $$)
	[ -n "$sd_pids" ] || return 1
	kill -TERM $sd_pids 2>/dev/null
	wait
	# A tool may outlive make a little: wa-fetch gives the requests in
	# flight a few seconds.
	for sd_p in $sd_pids; do
		while running "$sd_p"; do sleep 0.1; done
	done
}
