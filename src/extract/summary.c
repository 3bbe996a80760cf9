/* The end of a run of wa-extract: the outputs, the summary and the exit
 * status (extract-run.h). */
#include <stdio.h>
#include <stdlib.h>

#include "extract-run.h"
#include "url.h"
#include "wa.h"

void
run_finish_outputs(struct extract_run *run)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	bool whole = run->salvage || !run->unreadable;
	if (run->pages_file && whole)
		atomic_commit(run->pages_file);
	else if (run->pages_file)
		atomic_abort(run->pages_file);
	if (run->hints_file && whole)
		atomic_commit(run->hints_file);
	else if (run->hints_file)
		atomic_abort(run->hints_file);
}

static void
note_pages(const struct extract_run *run)
{
	uint64_t npages = 0;
	char types[256];
	size_t tlen = 0;
	for (int t = PAGE_HTML; t < PAGE_TYPES; t++) {
		npages += run->ntype[t];
		if (run->ntype[t] || t <= PAGE_ERROR)
			tlen += (size_t)snprintf(types + tlen, sizeof types - tlen, "%s%llu %s",
			    tlen ? ", " : "", (unsigned long long)run->ntype[t],
			    page_type_names[t]);
	}
	char nofollow[64] = "";
	if (run->nnofollow)
		snprintf(nofollow, sizeof nofollow, ", %llu not followed (nofollow)",
		    (unsigned long long)run->nnofollow);
	wa_note("%llu records: %llu pages (%s), %llu links%s",
	    (unsigned long long)run->nrecords, (unsigned long long)npages, types,
	    (unsigned long long)run->nlinks, nofollow);
}

static void
note_skipped(const struct extract_run *run)
{
	char skipped[512];
	size_t len = 0;
	for (size_t i = 0; i < NSKIPPED; i++)
		if (run->nskipped[i])
			len += (size_t)snprintf(skipped + len, sizeof skipped - len,
			    "%s%llu %s", len ? ", " : "",
			    (unsigned long long)run->nskipped[i], skipped_types[i]);
	if (run->nskipped_not_http)
		len += (size_t)snprintf(skipped + len, sizeof skipped - len,
		    "%s%llu without an http(s) target", len ? ", " : "",
		    (unsigned long long)run->nskipped_not_http);
	if (len)
		wa_note("skipped records: %s", skipped);
}

void
run_summarize(const struct extract_run *run)
{
	note_pages(run);
	note_skipped(run);
	if (run->nrefused_pages > ERRORS_SHOWN && !wa_verbose)
		wa_warn("%llu links refused on %llu pages (-v lists the pages)",
		    (unsigned long long)run->nrefused,
		    (unsigned long long)run->nrefused_pages);
	if (run->hints)
		wa_note("%llu sitemap hints", (unsigned long long)run->nhints);
	if (run->nbad_hint_pages > ERRORS_SHOWN && !wa_verbose)
		wa_warn("%llu sitemap hints left out on %llu pages (-v lists the pages)",
		    (unsigned long long)run->nbad_hints,
		    (unsigned long long)run->nbad_hint_pages);
	if (run->ntype[PAGE_ERROR] > ERRORS_SHOWN && !wa_verbose)
		wa_note("%llu pages could not be parsed (-v lists them all)",
		    (unsigned long long)run->ntype[PAGE_ERROR]);
}

void
run_free(struct extract_run *run)
{
	record_parser_free(&run->parser);
	url_cleanup();
}

int
run_exit_status(const struct extract_run *run)
{
	unsigned long long n = run->unreadable;
	if (!n)
		return WA_EXIT_OK;
	if (!run->pages_path)
		wa_warn("%llu records could not be read", n);
	else if (run->salvage)
		wa_warn("%llu records could not be read: %s holds the others",
		    n, run->pages_path);
	else
		wa_warn("%llu records could not be read: %s is left as it was "
		    "(-k writes the others)", n, run->pages_path);
	return run->salvage ? WA_EXIT_OK : WA_EXIT_ERROR;
}
