/* Scratch files and whole-buffer I/O (scratch.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "msg.h"
#include "scratch.h"

int
scratch_try_open(const char *dir, const char *prefix)
{
	char *path = wa_asprintf("%s/%s.XXXXXX", dir, prefix);
	/* No signal between making the file and unlinking it: a handler
	 * that exits would leave the file behind. */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	sigprocmask(SIG_SETMASK, &old, NULL);
	int saved = errno;
	free(path);
	errno = saved;
	return fd;
}

int
scratch_open(const char *dir, const char *prefix)
{
	int fd = scratch_try_open(dir, prefix);
	if (fd < 0)
		wa_die_errno("%s/%s.XXXXXX", dir, prefix);
	return fd;
}

/* Reads or writes at offset off, or at the file offset where off is
 * NO_OFFSET (a pipe too). */
#define NO_OFFSET UINT64_MAX

static bool
write_until(int fd, const void *buf, size_t n, uint64_t off)
{
	for (size_t done = 0; done < n;) {
		const char *p = (const char *)buf + done;
		ssize_t k = off == NO_OFFSET ? write(fd, p, n - done) :
		    pwrite(fd, p, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return false;
		done += (size_t)k;
	}
	return true;
}

bool
pwrite_full(int fd, const void *buf, size_t n, uint64_t off)
{
	return write_until(fd, buf, n, off);
}

bool
write_full(int fd, const void *buf, size_t n)
{
	return write_until(fd, buf, n, NO_OFFSET);
}

/* Fewer bytes than n only where the file ends. */
static ssize_t
read_until(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = off == NO_OFFSET ? read(fd, (char *)buf + done, n - done) :
		    pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

ssize_t
pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	return read_until(fd, buf, n, off);
}

ssize_t
read_full(int fd, void *buf, size_t n)
{
	return read_until(fd, buf, n, NO_OFFSET);
}

int
scratch_spool(int in, const char *name, const char *dir, const char *prefix)
{
	char buf[1 << 16];
	uint64_t off = 0;
	int fd = scratch_open(dir, prefix);
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			wa_die_errno("%s: read error", name);
		if (n == 0)
			return fd;
		if (!pwrite_full(fd, buf, (size_t)n, off))
			wa_die_errno("spooling %s to a temporary file", name);
		off += (uint64_t)n;
	}
}

void
spool_open(struct spool *sp, const char *dir)
{
	sp->dir = dir;
	sp->fd = scratch_open(dir, ".spool");
	sp->f = fdopen(sp->fd, "w");
	if (!sp->f)
		wa_die_errno("fdopen");
	setvbuf(sp->f, NULL, _IOFBF, SPOOL_BLOCK);
	sp->bytes = 0;
	sp->buf = wa_malloc(SPOOL_BLOCK);
}

void
spool_put_failed(const struct spool *sp)
{
	wa_die_errno("%s: cannot write to the scratch space", sp->dir);
}

void
spool_drain(struct spool *sp, void (*fn)(void *arg, const void *p, size_t n), void *arg)
{
	if (fflush(sp->f) != 0)
		wa_die_errno("%s: cannot write to the scratch space", sp->dir);
	for (uint64_t done = 0; done < sp->bytes;) {
		size_t want = sp->bytes - done < SPOOL_BLOCK ? (size_t)(sp->bytes - done) :
		    SPOOL_BLOCK;
		if (pread_full(sp->fd, sp->buf, want, done) != (ssize_t)want)
			wa_die_errno("%s: cannot read back the scratch space", sp->dir);
		fn(arg, sp->buf, want);
		done += want;
	}
	if (fseeko(sp->f, 0, SEEK_SET) != 0 || ftruncate(sp->fd, 0) != 0)
		wa_die_errno("%s: scratch space", sp->dir);
	sp->bytes = 0;
}

void
spool_close(struct spool *sp)
{
	fclose(sp->f);
	free(sp->buf);
	sp->buf = NULL;
}
