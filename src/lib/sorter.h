/* GNU sort(1) as a child process, fed through a pipe: LC_ALL=C sort -S
 * SIZE --parallel=N [-T DIR] [-u], with --compress-program=zstd (at its
 * fastest level, ZSTD_CLEVEL=1) when
 * zstd is installed, the address space is not limited (ulimit -v) and
 * the budget holds the zstd processes twice over (they take 104 MiB of
 * it, sort -S the rest but for the queue).  The input goes through a
 * queue, an eighth of that rest from 64 KiB to 16 MiB, that a thread of
 * the caller writes to the pipe: the caller goes on writing while sort sorts a full buffer and
 * reads nothing.  Its output comes back through a pipe,
 * or goes to a given file descriptor.  The child is registered with
 * workdir.h, which stops it if the process dies first. */
#ifndef WA_SORTER_H
#define WA_SORTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct sorter {
	const char *what;	/* for messages: "sort of the WHAT failed" */
	pid_t pid;
	FILE *in, *out;		/* out is NULL when the output goes to a descriptor */
	/* The queue behind in, or NULL; in frees it when closed.  Held here
	 * too, so that LeakSanitizer finds it from the caller's stack when
	 * the process dies with the queue's thread writing: it did not always
	 * find it through the stream. */
	struct sorter_queue *queue;
};

/* mem: bytes for -S; dir: -T, or NULL; out_fd: -1 for a pipe back. */
void sorter_start(struct sorter *so, const char *what, uint64_t mem, unsigned parallel,
    const char *dir, bool unique, int out_fd);
/* Ends the input; a write error means the child ended early, and its exit
 * status says why. */
void sorter_close_input(struct sorter *so);
/* After the input is closed and the output read: waits for the child and
 * dies with its exit status or signal if it failed. */
void sorter_finish(struct sorter *so);

#endif
