/* Scratch files and whole-buffer I/O.
 *
 * A scratch file exists only through its descriptor: it is unlinked as
 * soon as it is made, so that neither an error nor a signal, not even
 * SIGKILL, leaves it behind.  The whole-buffer loops go on after a signal
 * (EINTR) and a partial transfer; they leave the message to the caller,
 * who knows what the file is.
 *
 * Spooled input is a stream (standard input) copied whole into a scratch
 * file, for a tool that reads its input more than once.
 *
 * A spool is a scratch file written through stdio and read back in
 * pieces: bytes that must wait for something computed after them (the
 * words of a slice wait for its block index, graph.h), more than memory
 * would hold. */
#ifndef WA_SCRATCH_H
#define WA_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A scratch file DIR/PREFIX.XXXXXX open for reading and writing; dies
 * naming it if it cannot be made. */
int scratch_open(const char *dir, const char *prefix);
/* The same, for a caller with its own message: -1 with errno set. */
int scratch_try_open(const char *dir, const char *prefix);

/* Writes the n bytes of buf at offset off: true, or false with errno set. */
bool pwrite_full(int fd, const void *buf, size_t n, uint64_t off);
/* The same at the file offset, which it moves past them: for a pipe too. */
bool write_full(int fd, const void *buf, size_t n);
/* Reads n bytes at offset off into buf, fewer only where the file ends:
 * the bytes read, or -1 with errno set. */
ssize_t pread_full(int fd, void *buf, size_t n, uint64_t off);
/* The same from the file offset, which it moves past the bytes read: for
 * a pipe too. */
ssize_t read_full(int fd, void *buf, size_t n);

/* Copies what is left of in (named name in messages) into a new scratch
 * file DIR/PREFIX.XXXXXX; returns its descriptor, whose file offset is
 * still 0.  Dies on an error. */
int scratch_spool(int in, const char *name, const char *dir, const char *prefix);

#define SPOOL_BLOCK (1u << 20)

struct spool {
	FILE *f;
	int fd;
	uint64_t bytes;		/* spooled since the last drain */
	const char *dir;	/* for messages */
	uint8_t *buf;		/* SPOOL_BLOCK bytes, for the drain */
};

/* A spool in dir, which must outlive it; dies if it cannot be made. */
void spool_open(struct spool *sp, const char *dir);
/* Dies naming the scratch space. */
void spool_put_failed(const struct spool *sp);

static inline void
spool_put(struct spool *sp, const void *p, size_t n)
{
	if (fwrite_unlocked(p, 1, n, sp->f) != n)
		spool_put_failed(sp);
	sp->bytes += n;
}

/* Hands the spooled bytes to fn in order, in pieces of at most
 * SPOOL_BLOCK, then empties the spool for the next bytes. */
void spool_drain(struct spool *sp, void (*fn)(void *arg, const void *p, size_t n), void *arg);
void spool_close(struct spool *sp);

#endif
