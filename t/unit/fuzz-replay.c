/* Replays the inputs of the fuzz targets of t/fuzz/ in a plain build, so
 * that their invariants are checked by every build of the suite (gcc,
 * SANITIZE=1, VALGRIND=1) without clang: each regression input of
 * $FUZZ_REGRESSIONS (testdata/fuzz/regressions, named TARGET-WHAT, the
 * inputs that once crashed a target) on a TAP line of its own, and the
 * seed corpora $FUZZ_SEEDS/TARGET (testdata/fuzz) one line a target.  A
 * violated invariant aborts the program (t/fuzz/fuzz.h), which the test
 * reports; a line is "ok" only if some invariant was checked. */
#define FUZZ_REPLAY
#include "../fuzz/binfile.c"
#include "../fuzz/extract.c"
#include "../fuzz/robots.c"
#include "../fuzz/tsv.c"
#include "../fuzz/url.c"
#include "../fuzz/warc.c"

#include <dirent.h>
#include <sys/stat.h>

#include "tap.h"

static const struct {
	const char *name;
	int (*one)(const uint8_t *, size_t);
} targets[] = {
	{ "binfile", bin_fuzz_one }, { "extract", extract_fuzz_one },
	{ "robots", robots_fuzz_one }, { "tsv", tsv_fuzz_one },
	{ "url", url_fuzz_one }, { "warc", warc_fuzz_one },
};
#define NTARGETS (sizeof targets / sizeof targets[0])

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir, sorted; NULL-terminated. */
static char **
files_of(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	*n = 0;
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		v = wa_reallocarray(v, *n + 2, sizeof *v);
		v[(*n)++] = wa_strdup(e->d_name);
	}
	closedir(d);
	if (v) {
		qsort(v, *n, sizeof *v, by_name);
		v[*n] = NULL;
	}
	return v;
}

/* Runs the target on the file; the number of checks that held. */
static unsigned long
replay(int (*one)(const uint8_t *, size_t), const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		wa_die_errno("%s", path);
	struct stat st;
	if (fstat(fileno(f), &st) != 0)
		wa_die_errno("%s", path);
	size_t n = (size_t)st.st_size;
	uint8_t *data = wa_malloc(n);
	if (fread(data, 1, n, f) != n)
		wa_die("%s: short read", path);
	fclose(f);
	unsigned long before = fuzz_checks;
	one(data, n);
	free(data);
	return fuzz_checks - before;
}

int
main(void)
{
	const char *regressions = getenv("FUZZ_REGRESSIONS"), *seeds = getenv("FUZZ_SEEDS");
	if (!regressions || !seeds) {
		fputs("fuzz-replay: set FUZZ_REGRESSIONS and FUZZ_SEEDS\n", stderr);
		return 2;
	}
	size_t n;
	char **names = files_of(regressions, &n);
	ok(n > 0, "%zu regression inputs in %s", n, regressions);
	for (size_t i = 0; i < n; i++) {
		size_t t = 0;
		while (t < NTARGETS && !(strncmp(names[i], targets[t].name,
		    strlen(targets[t].name)) == 0 && names[i][strlen(targets[t].name)] == '-'))
			t++;
		if (!ok(t < NTARGETS, "%s names a fuzz target", names[i]))
			continue;
		char *path = wa_asprintf("%s/%s", regressions, names[i]);
		unsigned long checks = replay(targets[t].one, path);
		ok(checks > 0, "%s: %lu invariants hold", names[i], checks);
		free(path);
		free(names[i]);
	}
	free(names);

	for (size_t t = 0; t < NTARGETS; t++) {
		char *dir = wa_asprintf("%s/%s", seeds, targets[t].name);
		char **seed = files_of(dir, &n);
		unsigned long checks = 0;
		for (size_t i = 0; i < n; i++) {
			char *path = wa_asprintf("%s/%s", dir, seed[i]);
			checks += replay(targets[t].one, path);
			free(path);
			free(seed[i]);
		}
		free(seed);
		ok(n > 0 && checks > 0, "%s: %zu seeds, %lu invariants hold", targets[t].name, n,
		    checks);
		free(dir);
	}
	url_cleanup();
	return done_testing();
}
