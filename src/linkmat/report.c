/* What wa-linkmat says of its phases with -v (linkmat.h). */
#include <inttypes.h>
#include <stdarg.h>

#include "linkmat.h"
#include "wa.h"

void
verbose(const char *fmt, ...)
{
	va_list ap;
	if (!wa_verbose || wa_quiet)
		return;
	va_start(ap, fmt);
	wa_vwarn(fmt, ap);
	va_end(ap);
}

void
phase_done(struct linkmat *lm, const char *what)
{
	double now = monotonic_seconds();
	verbose("%s: %.2f s", what, now - lm->phase_started);
	lm->phase_started = now;
}

void
sort_done(const char *what, const struct extsort *s)
{
	const struct extsort_stats *st = extsort_stats(s);
	if (st->runs)
		verbose("  %s: %" PRIu64 " records, %" PRIu64 " runs, %" PRIu64
		    " MB spilled, %u merge passes", what, st->added, st->runs,
		    st->spilled_bytes >> 20, st->passes + 1);
	else
		verbose("  %s: %" PRIu64 " records, in memory", what, st->added);
}

