/* The command-line value parsers of src/lib/opt.c against hand-computed
 * values, and the warning of a renamed option. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "tap.h"
#include "wa.h"

static void
duration(const char *s, double want)
{
	double got = -1;
	bool okay = parse_duration(s, &got);
	if (isnan(want))
		ok(!okay, "duration '%s' is refused", s);
	else
		ok(okay && got == want, "duration '%s' = %g s (got %g)", s, want, got);
}

static void
size(const char *s, uint64_t want, bool valid)
{
	uint64_t got = 0;
	bool okay = parse_size(s, &got);
	if (!valid)
		ok(!okay, "size '%s' is refused", s);
	else
		ok(okay && got == want, "size '%s' = %" PRIu64 " (got %" PRIu64 ")", s, want, got);
}

static void
when(const char *s, int64_t want, bool valid)
{
	int64_t got = 0;
	bool okay = parse_time(s, &got);
	if (!valid)
		ok(!okay, "time '%s' is refused", s);
	else
		ok(okay && got == want, "time '%s' = %" PRId64 " (got %" PRId64 ")", s, want, got);
}

static void
number(const char *s, double want, bool valid)
{
	double got = 0;
	bool okay = parse_double(s, &got);
	if (!valid)
		ok(!okay, "number '%s' is refused", s);
	else
		ok(okay && got == want, "number '%s' = %g", s, want);
}

/* The code opt_rename returns for opt, and what it writes on stderr,
 * caught in a temporary file. */
static void
rename_check(int opt, int want, const char *want_stderr)
{
	static const struct opt_renamed table[] = {
		{ 'c', 0x201, "--per-connection" },
		{ 'p', 'P', "-P (--previous)" },
		{ 0, 0, NULL },
	};
	char got[256] = "";
	FILE *caught = tmpfile();
	int saved = dup(STDERR_FILENO);
	if (!caught || saved < 0 || dup2(fileno(caught), STDERR_FILENO) < 0) {
		ok(false, "stderr caught for -%c", opt);
		return;
	}
	int code = opt_rename(opt, table);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(caught);
	got[fread(got, 1, sizeof got - 1, caught)] = '\0';
	fclose(caught);
	ok(code == want, "-%c gives the code %#x (got %#x)", opt, (unsigned)want, (unsigned)code);
	is_str(got, want_stderr, "and what it writes on stderr");
}

int
main(void)
{
	duration("90s", 90);
	duration("15m", 900);
	duration("6h", 21600);
	duration("7d", 604800);
	duration("1h30m", 5400);
	duration("2.5s", 2.5);
	duration("0.5h", 1800);
	duration("5", 5);
	duration("0", 0);
	duration("", NAN);
	duration("s", NAN);
	duration("-5s", NAN);
	duration("5x", NAN);
	duration("5 s", NAN);
	duration("1h30", NAN);
	duration("inf", NAN);

	size("0", 0, true);
	size("4096", 4096, true);
	size("512K", 524288, true);
	size("64M", 67108864, true);
	size("2G", 2147483648ULL, true);
	size("1T", 1099511627776ULL, true);
	size("3k", 3072, true);
	size("", 0, false);
	size("1.5G", 0, false);
	size("-1M", 0, false);
	size("1MB", 0, false);
	size("99999999999999999999", 0, false);
	size("17179869184G", 0, false);

	when("0", 0, true);
	when("1700000000", 1700000000, true);
	when("2026-11-21", 1795219200, true);
	when("2026-11-21T18:52:47Z", 1795287167, true);
	when("2026-11-21T18:52Z", 1795287120, true);
	when("1970-01-01T00:00:00Z", 0, true);
	when("2000-02-29T12:00:00", 951825600, true);
	when("yesterday", 0, false);
	when("2026-11-21T", 0, false);
	when("2026-11-21T18:52:47+01:00", 0, false);
	when("", 0, false);

	number("0.85", 0.85, true);
	number("1e-9", 1e-9, true);
	number("-2", -2, true);
	number(".5", 0.5, true);
	number("nan", 0, false);
	number("inf", 0, false);
	number("0x10", 0, false);
	number(" 1", 0, false);
	number("1 ", 0, false);
	number("", 0, false);
	number("1e999", 0, false);

	char name[] = "wa-fetch";
	char *args[] = { name, NULL };
	wa_init(1, args, "");
	rename_check('c', 0x201, "wa-fetch: -c is now --per-connection; "
	    "the old spelling goes in the next release\n");
	rename_check('p', 'P', "wa-fetch: -p is now -P (--previous); "
	    "the old spelling goes in the next release\n");
	rename_check('P', 'P', "");
	rename_check('w', 'w', "");
	return done_testing();
}
