/* Progress of long runs on stderr (man/wa.7, "Progress").
 *
 * On a terminal a live line, redrawn at most ten times a second: what is
 * done, the rate (per second, or per minute below one a second), the time
 * left when the total is known, and a note of the tool's own (a residual,
 * idle connections).  Otherwise one plain line every PROGRESS_PLAIN_SECONDS
 * for cron logs, or as often as the duration in the environment variable
 * WA_PROGRESS_INTERVAL says, each starting with the UTC time in ISO 8601
 * ("2026-11-26T16:05:07Z ").  Nothing with -q. */
#ifndef WA_PROGRESS_H
#define WA_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRESS_PLAIN_SECONDS 10

struct progress {
	const char *what;	/* "links", "pages", ... */
	uint64_t total;		/* 0 if unknown */
	uint64_t done;
	char note[160];
	double started, last_shown, interval;
	double end_at_least;	/* monotonic time the run cannot end before */
	bool tty, shown;
	uint64_t next_check, step;
	double last_check;
};

void progress_start(struct progress *pg, const char *what, uint64_t total);
void progress_tick(struct progress *pg);
/* Cheap enough to call per record: it looks at the clock only now and then. */
static inline void
progress_set(struct progress *pg, uint64_t done)
{
	pg->done = done;
	if (done >= pg->next_check)
		progress_tick(pg);
}
/* Replaces the tool's note and redraws if due. */
void progress_note(struct progress *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The run needs at least seconds more, whatever its rate (wa-fetch's
 * politeness waits): the time left shown is never less. */
void progress_wait_left(struct progress *pg, double seconds);
/* Replaces the note with what the run did, for the final line; draws
 * nothing. */
void progress_summary(struct progress *pg, const char *summary);
/* Shows the final figures once (not with -q) and ends the live line. */
void progress_end(struct progress *pg);

double monotonic_seconds(void);

#endif
