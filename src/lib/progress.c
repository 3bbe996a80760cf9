#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "opt.h"
#include "progress.h"

double
monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
progress_start(struct progress *pg, const char *what, uint64_t total)
{
	memset(pg, 0, sizeof *pg);
	pg->what = what;
	pg->total = total;
	pg->started = pg->last_shown = pg->last_check = monotonic_seconds();
	pg->tty = isatty(STDERR_FILENO);
	pg->interval = pg->tty ? 0.1 : PROGRESS_PLAIN_SECONDS;
	const char *env = getenv("WA_PROGRESS_INTERVAL");
	if (env && !parse_duration(env, &pg->interval))
		wa_die("WA_PROGRESS_INTERVAL: bad duration '%s'", env);
	pg->step = 1;
	pg->next_check = 1;
}

static void
format_hms(char *buf, size_t n, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
}

/* Per second from one a second up, else per minute: a slow crawl shows
 * "12/min", not "0/s". */
static int
format_rate(char *buf, size_t n, double rate)
{
	if (rate >= 1)
		return snprintf(buf, n, "%.0f/s", rate);
	return snprintf(buf, n, rate >= 1.0 / 6 ? "%.0f/min" : "%.1f/min", 60 * rate);
}

/* A log's line starts with the time it was written. */
static int
format_now_utc(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	return (int)strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ ", gmtime_r(&t, &tm));
}

static void
show(struct progress *pg, double now, bool final)
{
	double elapsed = now - pg->started;
	double rate = elapsed > 0 ? pg->done / elapsed : 0;
	char line[512], when[32];
	int n = pg->tty ? 0 : format_now_utc(line, sizeof line);
	n += snprintf(line + n, sizeof line - n, "%s: %llu", wa_prog,
	    (unsigned long long)pg->done);
	if (pg->total)
		n += snprintf(line + n, sizeof line - n, "/%llu", (unsigned long long)pg->total);
	n += snprintf(line + n, sizeof line - n, " %s, ", pg->what);
	n += format_rate(line + n, sizeof line - n, rate);
	double waits = pg->end_at_least - now;
	if (final) {
		format_hms(when, sizeof when, elapsed);
		n += snprintf(line + n, sizeof line - n, ", %s", when);
	} else if (pg->total && (rate > 0 || waits > 0) && pg->done <= pg->total) {
		double left = rate > 0 ? (pg->total - pg->done) / rate : 0;
		format_hms(when, sizeof when, left > waits ? left : waits);
		n += snprintf(line + n, sizeof line - n, ", %.1f%%, %s left",
		    100.0 * pg->done / pg->total, when);
	}
	if (pg->note[0])
		snprintf(line + n, sizeof line - n, "; %s", pg->note);
	if (pg->tty)
		fprintf(stderr, "\r\033[K%s%s", line, final ? "\n" : "");
	else
		fprintf(stderr, "%s\n", line);
	pg->last_shown = now;
	pg->shown = true;
}

void
progress_tick(struct progress *pg)
{
	double now = monotonic_seconds();
	/* Aim at a look at the clock every 10 to 100 ms of work. */
	if (now - pg->last_check < 0.01)
		pg->step *= 2;
	else if (now - pg->last_check > 0.1 && pg->step > 1)
		pg->step /= 2;
	pg->last_check = now;
	pg->next_check = pg->done + pg->step;
	if (wa_quiet)
		return;
	if (now - pg->last_shown >= pg->interval)
		show(pg, now, false);
}

void
progress_note(struct progress *pg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pg->note, sizeof pg->note, fmt, ap);
	va_end(ap);
	progress_tick(pg);
}

void
progress_wait_left(struct progress *pg, double seconds)
{
	pg->end_at_least = monotonic_seconds() + seconds;
}

void
progress_summary(struct progress *pg, const char *summary)
{
	snprintf(pg->note, sizeof pg->note, "%s", summary);
}

void
progress_end(struct progress *pg)
{
	if (!wa_quiet && pg->shown)
		show(pg, monotonic_seconds(), true);
}
