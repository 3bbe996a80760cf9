/* The input of wa-fetch: the URL lists, the previous log (-P) and the
 * log to resume (--resume) (see fetch.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "fetchlist.h"
#include "msg.h"
#include "url.h"
#include "utf8.h"
#include "wa.h"

/* The fetch log's name for an input that is no URL: the input, with its
 * control bytes and bytes that are not UTF-8 percent-encoded, cut past
 * URL_MAX bytes and then ended by a hash of the whole, so that the log
 * stays UTF-8 with lines of bounded length. */
static char *
bad_url_name(const char *in)
{
	size_t n = strlen(in), len = 0, i = 0;
	char *out = wa_malloc(3 * n + 1);

	while (i < n) {
		long bad = utf8_invalid_at(in + i, n - i);
		size_t end = bad < 0 ? n : i + (size_t)bad;
		for (; i <= end && i < n; i++) {
			unsigned char c = (unsigned char)in[i];
			if (i == end || c < 0x20 || c == 0x7f)
				len += (size_t)sprintf(out + len, "%%%02X", c);
			else
				out[len++] = (char)c;
		}
	}
	out[len] = '\0';
	if (len > URL_MAX) {
		size_t cut = URL_MAX - 20;
		/* Not inside an escape or a UTF-8 sequence. */
		while (out[cut - 1] == '%' || out[cut - 2] == '%' ||
		    ((unsigned char)out[cut] & 0xc0) == 0x80)
			cut--;
		snprintf(out + cut, 20, "...%016" PRIx64, strmap_hash(in, n));
	}
	return out;
}

/* The input counts, for the notes. */
struct input_counts {
	uint64_t bad, skipped, dups;
};

static void
read_urls(struct fetch *f, const char *path, const struct strmap *done,
    struct strmap *seen, struct input_counts *n)
{
	struct tsv *t = fetchlist_open(path);
	char canon[URL_BUFSIZE];
	const char *why;

	while (tsv_next(t)) {
		bool ok = url_canon(t->col[FETCHLIST_URL], canon, &why);
		char *key = ok ? wa_strdup(canon) : bad_url_name(t->col[FETCHLIST_URL]);
		/* Rejected for the report, and still logged as bad-url; a
		 * list with no URL at all is refused by tsv_close. */
		if (!ok)
			tsv_reject(t, "bad URL: %s: %.200s", why, key);
		bool resumed = strmap_get(done, key), repeated = strmap_get(seen, key);
		if (resumed || repeated) {
			++*(resumed ? &n->skipped : &n->dups);
			free(key);
			continue;
		}
		/* A set: any value but NULL says the key is in it. */
		strmap_put(seen, key, seen);
		n->bad += !ok;
		if ((f->nentries & (f->nentries - 1)) == 0)
			f->entries = wa_reallocarray(f->entries,
			    f->nentries ? 2 * f->nentries : 1, sizeof *f->entries);
		f->entries[f->nentries++] = (struct entry){ key, !ok, false };
	}
	tsv_close(t);
}

void
fetch_read_input(struct fetch *f, char **lists, int nlists)
{
	struct strmap done, seen;
	struct input_counts n = { 0, 0, 0 };

	strmap_init(&f->previous);
	strmap_init(&done);
	strmap_init(&seen);
	if (f->opt.previous)
		fetchlog_load_previous(f->opt.previous, &f->previous);
	if (f->opt.resume)
		fetchlog_load_done(f->opt.resume, &done);
	if (nlists == 0)
		read_urls(f, NULL, &done, &seen, &n);
	for (int i = 0; i < nlists; i++)
		read_urls(f, lists[i], &done, &seen, &n);
	strmap_free(&done, NULL);
	strmap_free(&seen, NULL);
	if (n.bad > 0)
		wa_warn("%" PRIu64 " bad URLs, logged with status bad-url", n.bad);
	if (n.skipped > 0)
		wa_note("%" PRIu64 " URLs skipped: done in %s", n.skipped, f->opt.resume);
	if (n.dups > 0)
		wa_note("%" PRIu64 " repeated URLs fetched once", n.dups);
}

void
fetch_queue_entries(struct fetch *f)
{
	uint64_t out = 0;
	for (size_t i = 0; i < f->nentries; i++) {
		if (f->entries[i].bad) {
			fetch_log_unfetched(f, i, "bad-url", NULL, NULL);
			continue;
		}
		/* A list is fetched as given: its non-documents too. */
		if (scope_decide(&f->opt.scope, f->entries[i].url) == SCOPE_OUT) {
			fetch_log_unfetched(f, i, "out-of-scope", NULL, NULL);
			out++;
			continue;
		}
		char *origin = url_origin(f->entries[i].url);
		struct site *site = sites_get(&f->sites, origin, f->opt.wait);
		free(origin);
		sites_push(&f->sites, site, i, wa_strdup(f->entries[i].url), 0);
	}
	if (out > 0)
		wa_note("%" PRIu64 " URLs out of scope, logged with status out-of-scope", out);
}
