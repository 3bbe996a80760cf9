/* The links as read: (destination hash, source hash) records in input
 * order, duplicates included, for the join to read back (linkmat.h).  They
 * stay in memory up to their share, and go on in a scratch file from
 * there. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmat.h"
#include "scratch.h"
#include "wa.h"
#include "workdir.h"

void
pairs_open(struct pairs *p, uint64_t budget)
{
	*p = (struct pairs){ .fd = -1 };
	uint64_t most = budget / PAIR_BYTES;
	p->most = most < PAIRS_BUFFER ? PAIRS_BUFFER : (size_t)most;
}

void
pairs_grow(struct pairs *p)
{
	if (p->cap < p->most) {
		p->cap = p->cap ? 2 * p->cap : PAIRS_BUFFER;
		if (p->cap > p->most)
			p->cap = p->most;
		p->buf = wa_reallocarray(p->buf, p->cap, PAIR_BYTES);
		return;
	}
	if (p->fd < 0)
		p->fd = scratch_open(workdir_path(), ".pairs");
	if (!pwrite_full(p->fd, p->buf, p->n * PAIR_BYTES, p->in_file * PAIR_BYTES))
		wa_die_errno("cannot write to the scratch space in %s", workdir_path());
	p->in_file += p->n;
	p->n = 0;
}

size_t
pairs_read(const struct pairs *p, uint64_t at, uint8_t *out, size_t max)
{
	uint64_t end = p->in_file + p->n;
	size_t want = end - at < max ? (size_t)(end - at) : max;
	size_t from_file = at < p->in_file ?
	    (size_t)(p->in_file - at < want ? p->in_file - at : want) : 0;
	if (from_file) {
		ssize_t got = pread_full(p->fd, out, from_file * PAIR_BYTES, at * PAIR_BYTES);
		if (got != (ssize_t)(from_file * PAIR_BYTES)) {
			if (got >= 0)
				errno = EIO;
			wa_die_errno("cannot read back the scratch space in %s", workdir_path());
		}
	}
	if (want > from_file)
		memcpy(out + from_file * PAIR_BYTES,
		    p->buf + (at + from_file - p->in_file) * PAIR_BYTES,
		    (want - from_file) * PAIR_BYTES);
	return want;
}

void
pairs_close(struct pairs *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	*p = (struct pairs){ .fd = -1 };
}
