/* wa-url: puts the URLs of TSV rows in canonical form, optionally resolved
 * against a base, and appends their SURT key, host or registrable domain. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "wa.h"

static const char usage[] =
    "usage: wa-url [-q] [-B BASE] [-a KEY]... [FILE...]\n"
    "Writes each TSV row of the FILEs (or stdin) with its first column, a URL,\n"
    "in canonical form; the other columns stay as they are.  Rows whose URL\n"
    "cannot be made canonical are reported on stderr and left out.\n"
    "  -a KEY   append a column: surt (SURT key), cdx (key of CDXJ indexes),\n"
    "           host, or domain (registrable domain); repeat for more columns\n"
    "  -B BASE, --base BASE\n"
    "           resolve relative references against the URL BASE\n"
    "  -q       no progress line\n"
    "  -h       this help;  --version  the version\n"
    "See wa-url(1).\n";

/* The key of CDXJ indexes (url.h), whose port comes before ')' so that
 * rows join with the lines of wa-cdx(1). */
static bool
cdx_key(const char *url, char *out)
{
	char *key = url_cdx_key(url);
	bool fits = key && strlen(key) <= URL_MAX;
	if (fits)
		strcpy(out, key);
	free(key);
	return fits;
}

static const struct key {
	const char *name;
	bool (*fn)(const char *url, char *out);
} key_table[] = {
	{ "surt", url_surt },
	{ "cdx", cdx_key },
	{ "host", url_host },
	{ "domain", url_registrable_domain },
};
static const struct key *const key_end = key_table + sizeof key_table / sizeof key_table[0];

static const struct key **keys;	/* the -a columns */
static size_t nkeys;
static const char *base;
static struct progress pg;

static void
filter(const char *path)
{
	char url[URL_BUFSIZE], extra[URL_BUFSIZE];
	const char *why;
	struct tsv *t = tsv_open(path, 1, 0, 0);
	while (tsv_next(t)) {
		bool ok = base ? url_resolve(base, t->col[0], url, &why) :
		    url_canon(t->col[0], url, &why);
		if (!ok) {
			tsv_reject(t, "%s: %.200s", why, t->col[0]);
			continue;
		}
		fputs(url, stdout);
		for (size_t i = 1; i < t->ncol; i++) {
			putchar('\t');
			fputs(t->col[i], stdout);
		}
		for (size_t i = 0; i < nkeys; i++) {
			if (!keys[i]->fn(url, extra))
				wa_die("no %s for the canonical URL %s", keys[i]->name, url);
			putchar('\t');
			fputs(extra, stdout);
		}
		putchar('\n');
		progress_set(&pg, pg.done + 1);
	}
	tsv_close(t);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'B' },
		WA_COMMON_LONGOPTS
	};
	/* The spelling of the release before. */
	static const struct opt_renamed renamed[] = {
		{ 'b', 'B', "-B (--base)" },
		{ 0, 0, NULL },
	};
	static char canon_base[URL_BUFSIZE];
	const char *why;
	int c;

	wa_init(argc, argv, usage);
	keys = wa_calloc((size_t)argc, sizeof *keys);
	while ((c = getopt_long(argc, argv, "a:B:b:hq", longopts, NULL)) != -1) {
		const struct key *k;
		switch (opt_rename(c, renamed)) {
		case 'a':
			for (k = key_table; k < key_end; k++)
				if (strcmp(optarg, k->name) == 0)
					break;
			if (k == key_end)
				wa_usage_error("-a: unknown key '%s' (surt, cdx, host or domain)",
				    optarg);
			keys[nkeys++] = k;
			break;
		case 'B':
			if (!url_canon(optarg, canon_base, &why))
				wa_usage_error("-B: bad base URL '%s': %s", optarg, why);
			base = canon_base;
			break;
		default:
			wa_common_option(c);
		}
	}

	progress_start(&pg, "URLs", 0);
	if (optind == argc)
		filter(NULL);
	for (int i = optind; i < argc; i++)
		filter(argv[i]);
	progress_end(&pg);
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	free(keys);
	url_cleanup();
	return WA_EXIT_OK;
}
