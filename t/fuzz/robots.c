/* Fuzz target: robots.txt parsing and matching (src/lib/robots.h).
 *
 * Input: "BODY\0PATH\nPATH..." (without a NUL, the body alone, with the
 * paths taken from its own lines), parsed for the agent "wa-fetch".
 * Checks, beyond no crash and no sanitizer finding:
 *   - a decision is deterministic: a second parse of the same body gives
 *     the same decisions, delay and sitemaps;
 *   - line ends do not matter: the body with each LF made CRLF (when it
 *     has no CR), or with a comment line appended, decides the same;
 *   - "/robots.txt" is always allowed, the empty path is "/", and a path
 *     decides as its canonical percent-encoding does; robots_all(true)
 *     allows every path, robots_all(false) only "/robots.txt";
 *   - the Crawl-delay is -1 or a finite delay >= 0, and no sitemap holds a
 *     control byte;
 *   - matching against an independent oracle (dynamic programming over
 *     pattern and path, RFC 9309 sec. 2.2.2, with the literal '*' and '$'
 *     written %2A and %24 as sec. 2.2.3 names them): for each PATTERN among the
 *     lines, "User-agent: *" with "Disallow: PATTERN" forbids exactly the
 *     paths the oracle matches, and with "Disallow: /" and
 *     "Allow: PATTERN" allows exactly them. */
#include <math.h>
#include <stdbool.h>

#include "fuzz.h"
#include "robots.h"
#include "url.h"

#define ROBOTS_FUZZ_AGENT "wa-fetch"

struct robots_paths {
	char **v;
	size_t n;
};

/* The canonical percent-encoding of s, as a fresh string starting with
 * '/'. */
static char *
robots_norm(const char *s)
{
	size_t n = strlen(s);
	char *out = wa_malloc(3 * n + 2);
	out[0] = '/';
	url_norm_percent(s, n, out + (s[0] != '/'));
	return out;
}

/* Whether p[0..pn) matches s[0..sn) as RFC 9309 says: '*' any run, a
 * final '$' the end, otherwise a prefix.  m[i][j]: p[i..] matches s[j..]. */
static bool
robots_oracle(const char *p, size_t pn, const char *s, size_t sn)
{
	bool anchored = pn > 0 && p[pn - 1] == '$';
	if (anchored)
		pn--;
	bool *m = wa_calloc((pn + 1) * (sn + 1), sizeof *m);
#define M(i, j) m[(i) * (sn + 1) + (j)]
	for (size_t j = 0; j <= sn; j++)
		M(pn, j) = anchored ? j == sn : true;
	for (size_t i = pn; i-- > 0;)
		for (size_t j = sn + 1; j-- > 0;) {
			if (p[i] == '*')
				M(i, j) = M(i + 1, j) || (j < sn && M(i, j + 1));
			else
				M(i, j) = j < sn && p[i] == s[j] && M(i + 1, j + 1);
		}
	bool r = M(0, 0);
#undef M
	free(m);
	return r;
}

/* s with its literal '*' and '$' written %2A and %24, as RFC 9309 section
 * 2.2.3 names them: in a path every '*' and '$' is literal; in a rule
 * only a '$' before the end is (a '*' is the wildcard, a final '$' the
 * anchor).  A fresh string. */
static char *
robots_oracle_escape(const char *s, bool rule)
{
	size_t n = strlen(s), k = 0;
	char *out = wa_malloc(3 * n + 1);
	for (size_t i = 0; i < n; i++) {
		bool literal = rule ? s[i] == '$' && i + 1 < n : s[i] == '*' || s[i] == '$';
		if (literal) {
			memcpy(out + k, s[i] == '*' ? "%2A" : "%24", 3);
			k += 3;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
	return out;
}

static struct robots *
robots_parse_str(const char *body, size_t len)
{
	return robots_parse(body, len, ROBOTS_FUZZ_AGENT);
}

/* Whether a and b decide alike on every path and agree on the rest. */
static void
robots_same(const struct robots *a, const struct robots *b, const struct robots_paths *ps,
    const char *what)
{
	for (size_t i = 0; i < ps->n; i++)
		fuzz_check(robots_allowed(a, ps->v[i]) == robots_allowed(b, ps->v[i]),
		    "%s: \"%.200s\" decided differently", what, ps->v[i]);
	double da = robots_crawl_delay(a), db = robots_crawl_delay(b);
	fuzz_check(da == db, "%s: Crawl-delay %g and %g", what, da, db);
	size_t n = robots_sitemap_count(a);
	fuzz_check(n == robots_sitemap_count(b), "%s: %zu and %zu sitemaps", what, n,
	    robots_sitemap_count(b));
	for (size_t i = 0; i < n; i++)
		fuzz_check(strcmp(robots_sitemap(a, i), robots_sitemap(b, i)) == 0,
		    "%s: sitemap %zu differs", what, i);
}

static void
robots_check_one(const struct robots *r, const struct robots_paths *ps)
{
	fuzz_check(robots_allowed(r, "/robots.txt"), "/robots.txt disallowed");
	fuzz_check(robots_allowed(r, "") == robots_allowed(r, "/"), "\"\" and \"/\" differ");
	for (size_t i = 0; i < ps->n; i++) {
		char *norm = robots_norm(ps->v[i]);
		if (ps->v[i][0] == '/')
			fuzz_check(robots_allowed(r, ps->v[i]) == robots_allowed(r, norm),
			    "\"%.200s\" and its canonical form \"%.200s\" differ", ps->v[i],
			    norm);
		free(norm);
	}
	double d = robots_crawl_delay(r);
	fuzz_check(d == -1 || (isfinite(d) && d >= 0), "Crawl-delay %g", d);
	size_t n = robots_sitemap_count(r);
	fuzz_check(robots_sitemap(r, n) == NULL, "a sitemap past the end");
	for (size_t i = 0; i < n; i++)
		for (const unsigned char *s = (const unsigned char *)robots_sitemap(r, i); *s; s++)
			fuzz_check(*s >= 0x20 && *s != 0x7f, "sitemap %zu holds byte 0x%02x", i, *s);
}

/* Whether line is a pattern the oracle can judge: from '/', no byte
 * that ends a value (blanks, controls, '#'). */
static bool
robots_oracle_pattern(const char *line)
{
	if (line[0] != '/')
		return false;
	for (const unsigned char *s = (const unsigned char *)line; *s; s++)
		if (*s <= ' ' || *s == 0x7f || *s == '#')
			return false;
	return true;
}

static void
robots_check_oracle(const char *pattern, const struct robots_paths *ps)
{
	char *norm_pattern = robots_norm(pattern);
	char *pat = robots_oracle_escape(norm_pattern, true);
	free(norm_pattern);
	size_t pn = strlen(pat);
	char *deny = wa_asprintf("User-agent: *\nDisallow: %s\n", pattern);
	char *allow = wa_asprintf("User-agent: *\nDisallow: /\nAllow: %s\n", pattern);
	struct robots *rd = robots_parse_str(deny, strlen(deny));
	struct robots *ra = robots_parse_str(allow, strlen(allow));
	for (size_t i = 0; i <= ps->n; i++) {
		/* The paths, then the pattern itself without its '*' and '$'. */
		char *path;
		if (i < ps->n) {
			path = robots_norm(ps->v[i]);
		} else {
			path = robots_norm(pattern);
			size_t k = 0;
			for (char *s = path; *s; s++)
				if (*s != '*' && *s != '$')
					path[k++] = *s;
			path[k] = '\0';
		}
		if (strcmp(path, "/robots.txt") != 0) {
			char *escaped = robots_oracle_escape(path, false);
			bool match = robots_oracle(pat, pn, escaped, strlen(escaped));
			free(escaped);
			fuzz_check(robots_allowed(rd, path) == !match,
			    "Disallow: %.200s on \"%.200s\": oracle says %s", pattern, path,
			    match ? "match" : "no match");
			fuzz_check(robots_allowed(ra, path) == match,
			    "Allow: %.200s on \"%.200s\": oracle says %s", pattern, path,
			    match ? "match" : "no match");
		}
		free(path);
	}
	robots_free(rd);
	robots_free(ra);
	free(deny);
	free(allow);
	free(pat);
}

static int
robots_fuzz_one(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t body_len = nul ? (size_t)(nul - data) : size;
	/* The path lines: after the NUL, or else the values of the body's
	 * lines (what follows a colon, blanks trimmed). */
	char *list = nul ? wa_strndup((const char *)nul + 1, size - body_len - 1) :
	    wa_strndup(body, body_len);
	struct robots_paths ps = { wa_calloc(strlen(list) + 2, sizeof *ps.v), 0 };
	for (char *line = list, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!nul) {
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			line = colon + 1 + strspn(colon + 1, " \t");
			line[strcspn(line, " \t\r#")] = '\0';
		}
		ps.v[ps.n++] = line;
	}

	struct robots *r = robots_parse_str(body, body_len);
	struct robots *again = robots_parse_str(body, body_len);
	robots_check_one(r, &ps);
	robots_same(r, again, &ps, "a second parse");
	robots_free(again);

	char *variant = wa_malloc(2 * body_len + 16);
	if (!memchr(body, '\r', body_len)) {
		size_t k = 0;
		for (size_t i = 0; i < body_len; i++) {
			if (body[i] == '\n')
				variant[k++] = '\r';
			variant[k++] = body[i];
		}
		struct robots *crlf = robots_parse_str(variant, k);
		robots_same(r, crlf, &ps, "the body with CRLF line ends");
		robots_free(crlf);
	}
	memcpy(variant, body, body_len);
	memcpy(variant + body_len, "\n# the end\n", 11);
	struct robots *longer = robots_parse_str(variant, body_len + 11);
	robots_same(r, longer, &ps, "the body with a comment appended");
	robots_free(longer);
	free(variant);
	robots_free(r);

	for (size_t i = 0; i < ps.n; i++)
		if (robots_oracle_pattern(ps.v[i]))
			robots_check_oracle(ps.v[i], &ps);

	struct robots *all = robots_all(true), *none = robots_all(false);
	for (size_t i = 0; i < ps.n; i++) {
		if (ps.v[i][0] != '/')
			continue;	/* no path of a URL */
		fuzz_check(robots_allowed(all, ps.v[i]), "robots_all(true) forbids a path");
		fuzz_check(robots_allowed(none, ps.v[i]) == (strcmp(ps.v[i], "/robots.txt") == 0),
		    "robots_all(false) on \"%.200s\"", ps.v[i]);
	}
	robots_free(all);
	robots_free(none);
	free(ps.v);
	free(list);
	return 0;
}

FUZZ_TARGET(robots_fuzz_one)
