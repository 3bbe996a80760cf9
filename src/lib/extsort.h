/* External sort of fixed-size binary records, for data larger than the
 * memory budget (wa-linkmat's link and node spills).
 *
 * A record is 4, 8, 12 or 16 bytes, ordered as one little-endian unsigned
 * integer: its last byte is the most significant, so a caller puts the
 * primary key at the end of the record.  Records gather in memory; when
 * half the budget is full they are sorted there (radix sort, whose
 * scratch array takes the other half) and written as a sorted run to a
 * scratch file.  With EXTSORT_BACKGROUND a thread sorts and writes a run
 * while the next one fills, each taking a third of the budget, and
 * extsort_finish sorts what is left in memory on two threads.  The end
 * merges the runs, in several passes when the budget cannot give each run
 * a read buffer at once.  A sort whose records
 * fit in memory never touches the disk.
 *
 * Scratch files are unlinked as soon as they are created, so that neither
 * an error nor a signal, not even SIGKILL, leaves them behind. */
#ifndef WA_EXTSORT_H
#define WA_EXTSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	EXTSORT_UNIQUE = 1,	/* equal records come out once */
	EXTSORT_BACKGROUND = 2,	/* a thread sorts and writes the runs */
};

/* The least budget a sort accepts: a run and a few read buffers. */
#define EXTSORT_MIN_BUDGET (16u << 10)

struct extsort_stats {
	uint64_t added;		/* records given to extsort_add */
	uint64_t runs;		/* runs written to disk, all passes */
	uint64_t spilled_bytes;	/* bytes written to disk, all passes */
	unsigned passes;	/* merge passes before the final one */
};

/* name is for messages ("links by source"); scratch files go to dir. */
struct extsort *extsort_new(const char *name, const char *dir, size_t rec_bytes,
    uint64_t budget, unsigned flags);
void extsort_add(struct extsort *s, const void *rec);
/* The n records at recs, one after the other, as n extsort_add. */
void extsort_add_many(struct extsort *s, const void *recs, size_t n);
/* No more records: sorts what is in memory, or spills it and prepares the
 * merge.  Frees the memory a later stage does not need. */
void extsort_finish(struct extsort *s);
/* The next record in order, or NULL at the end; valid until the next call. */
const void *extsort_next(struct extsort *s);
/* Starts the sorted sequence again from its first record. */
void extsort_rewind(struct extsort *s);
const struct extsort_stats *extsort_stats(const struct extsort *s);
void extsort_free(struct extsort *s);

#endif
