/* robots.txt parsing and matching (robots.h), after RFC 9309.
 *
 * The parser keeps only what the chosen agent needs: the rules of the
 * groups naming it and, in case none does, those of the "*" groups.  Both
 * lists are built in one pass; the end of the file decides which one
 * stays.  Rules are stored with their pattern's percent-encoding made
 * canonical and their literal '*' and '$' escaped, sorted longest first
 * by the length as written (allow before disallow at equal length,
 * duplicates removed), so the first rule that matches a path is the
 * verdict.
 *
 * A pattern is literal pieces separated by '*'.  Matching the pieces
 * left to right, each at its leftmost occurrence (memmem), is exact for
 * such patterns and takes time linear in path and pattern, whatever the
 * number of '*': there is no backtracking. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ascii.h"
#include "msg.h"
#include "robots.h"
#include "url.h"

struct rule {
	char *pattern;
	size_t len;
	size_t weight;	/* the pattern's length as written, escapes normalised */
	bool allow;
};

struct rule_list {
	struct rule *v;
	size_t n, cap;
	double delay;	/* the first valid Crawl-delay, or -1 */
};

struct robots {
	struct rule_list rules;
	char **sitemaps;
	size_t nsitemaps, sitemaps_cap;
};

enum key { KEY_OTHER, KEY_USER_AGENT, KEY_ALLOW, KEY_DISALLOW, KEY_CRAWL_DELAY,
	KEY_SITEMAP };

/* Spellings accepted for each key, compared without case.  Besides the
 * RFC's names these are the misspellings Google's parser accepts (and
 * "crawldelay"): their meaning is plain, and obeying a misspelt Disallow
 * is the polite reading. */
static const struct {
	const char *name;
	enum key key;
} key_names[] = {
	{ "user-agent", KEY_USER_AGENT },
	{ "useragent", KEY_USER_AGENT },
	{ "user agent", KEY_USER_AGENT },
	{ "allow", KEY_ALLOW },
	{ "disallow", KEY_DISALLOW },
	{ "dissallow", KEY_DISALLOW },
	{ "dissalow", KEY_DISALLOW },
	{ "disalow", KEY_DISALLOW },
	{ "diasllow", KEY_DISALLOW },
	{ "disallaw", KEY_DISALLOW },
	{ "crawl-delay", KEY_CRAWL_DELAY },
	{ "crawldelay", KEY_CRAWL_DELAY },
	{ "sitemap", KEY_SITEMAP },
	{ "site-map", KEY_SITEMAP },
};

static bool
is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* Whether pattern p[0..plen) matches the path s[0..n): '*' is any run of
 * bytes, a final '$' the end of the path, and without it the pattern
 * need only match a prefix. */
static bool
pattern_matches(const char *p, size_t plen, const char *s, size_t n)
{
	bool anchored = plen > 0 && p[plen - 1] == '$';
	if (anchored)
		plen--;
	const char *star = memchr(p, '*', plen);
	size_t first = star ? (size_t)(star - p) : plen;
	if (first > n || memcmp(p, s, first) != 0)
		return false;
	if (!star)
		return !anchored || first == n;
	size_t pos = first;
	size_t i = first + 1;
	while (i < plen) {
		if (p[i] == '*') {
			i++;
			continue;
		}
		const char *next = memchr(p + i, '*', plen - i);
		size_t end = next ? (size_t)(next - p) : plen;
		size_t piece = end - i;
		if (end == plen && anchored)
			return n - pos >= piece && memcmp(s + n - piece, p + i, piece) == 0;
		const char *found = memmem(s + pos, n - pos, p + i, piece);
		if (!found)
			return false;
		pos = (size_t)(found - s) + piece;
		i = end;
	}
	return true;
}

static void
add_rule(struct rule_list *l, const char *pattern, size_t len, size_t weight, bool allow)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = wa_reallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n++] = (struct rule){ wa_strndup(pattern, len), len, weight, allow };
}

static void
free_rules(struct rule_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].pattern);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Heaviest first, allow first among equals, then by bytes so that equal
 * rules lie together. */
static int
rule_cmp(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->allow != y->allow)
		return x->allow ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return memcmp(x->pattern, y->pattern, x->len);
}

static void
sort_rules(struct rule_list *l)
{
	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof *l->v, rule_cmp);
	size_t kept = 1;
	for (size_t i = 1; i < l->n; i++) {
		if (rule_cmp(&l->v[i], &l->v[kept - 1]) == 0)
			free(l->v[i].pattern);
		else
			l->v[kept++] = l->v[i];
	}
	l->n = kept;
}

static void
add_sitemap(struct robots *r, const char *url, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)url[i] < 0x20 || url[i] == 0x7f)
			return;
	if (r->nsitemaps == r->sitemaps_cap) {
		r->sitemaps_cap = r->sitemaps_cap ? 2 * r->sitemaps_cap : 4;
		r->sitemaps = wa_reallocarray(r->sitemaps, r->sitemaps_cap, sizeof *r->sitemaps);
	}
	r->sitemaps[r->nsitemaps++] = wa_strndup(url, len);
}

/* The product token at the start of s[0..n): the run of letters, '-' and
 * '_' (Google's reading, so "wa-fetch/1.0" and "wa-fetch (+url)" both
 * give "wa-fetch"). */
static size_t
token_length(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (is_alpha((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
		i++;
	return i;
}

static bool
same_token(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen || alen == 0)
		return false;
	for (size_t i = 0; i < alen; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return false;
	return true;
}

/* A number of seconds as strtod reads it, exponent and "inf" included
 * but not hexadecimal; a negative number or NaN is no delay.  A value
 * above ROBOTS_MAX_DELAY is that: a site asking for years between two
 * requests asks for more than any caller grants, and the bound keeps the
 * caller's arithmetic safe. */
static bool
parse_delay(const char *s, size_t n, double *out)
{
	if (n == 0 || memchr(s, 'x', n) || memchr(s, 'X', n))
		return false;
	char *copy = wa_strndup(s, n), *end;
	double v = strtod(copy, &end);
	bool whole = *end == '\0';
	free(copy);
	if (!whole || !(v >= 0))
		return false;
	*out = v > ROBOTS_MAX_DELAY ? ROBOTS_MAX_DELAY : v;
	return true;
}

static enum key
classify(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
		const char *name = key_names[i].name;
		if (strlen(name) == n && strncasecmp(name, k, n) == 0)
			return key_names[i].key;
	}
	return KEY_OTHER;
}

static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && is_blank((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && is_blank((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* Splits the line s[0..n) into key and value.  Past the comment, the
 * separator is the first ':'; a line without one still counts when it is
 * exactly two words ("Disallow /"), as Google reads it. */
static bool
split_line(const char *s, size_t n, const char **key, size_t *keylen,
    const char **value, size_t *valuelen)
{
	const char *hash = memchr(s, '#', n);
	if (hash)
		n = (size_t)(hash - s);
	trim(&s, &n);
	const char *colon = memchr(s, ':', n);
	size_t klen;
	if (colon) {
		klen = (size_t)(colon - s);
		*value = colon + 1;
		*valuelen = n - klen - 1;
	} else {
		for (klen = 0; klen < n && !is_blank((unsigned char)s[klen]); klen++)
			continue;
		if (klen == n)
			return false;
		*value = s + klen;
		*valuelen = n - klen;
		trim(value, valuelen);
		for (size_t i = 0; i < *valuelen; i++)
			if (is_blank((unsigned char)(*value)[i]))
				return false;
	}
	*key = s;
	*keylen = klen;
	trim(key, keylen);
	trim(value, valuelen);
	return true;
}

/* The bytes of body[0..len) that count: at most ROBOTS_MAX_BYTES, and a
 * line cut by that limit is dropped whole, so that a truncated rule never
 * takes effect with a meaning its author did not write. */
static size_t
usable_length(const char *body, size_t len)
{
	if (len <= ROBOTS_MAX_BYTES)
		return len;
	size_t n = ROBOTS_MAX_BYTES;
	if (body[n] == '\n' || body[n] == '\r')
		return n;
	while (n > 0 && body[n - 1] != '\n' && body[n - 1] != '\r')
		n--;
	return n;
}

struct parse_state {
	const char *agent;
	size_t agentlen;
	bool in_agent_lines;	/* the last key line was a user-agent */
	bool seen_agent;	/* a group has begun */
	bool group_mine, group_star;
	bool any_mine;		/* some group names the agent */
	struct rule_list mine, star;
	char *scratch;
	size_t scratch_cap;
};

/* Writes s[0..n) to out (6 * n + 2 bytes) with its percent-encoding
 * normalised as url_norm_percent does and the '*' and '$' that stand for
 * themselves written %2A and %24, the way RFC 9309 section 2.2.3 has a
 * rule name them: so a rule's "%24" matches a path's "$" (and "%24").  In
 * a rule, '*' is the wildcard and a final '$' the end anchor; in a path,
 * every '*' and '$' is itself.  Returns the length written; *weight, if
 * not NULL, gets the length before the escaping, which ranks rules. */
static size_t
norm_for_matching(const char *s, size_t n, char *out, bool rule, size_t *weight)
{
	char *tmp = out + 3 * n + 1;
	size_t len = url_norm_percent(s, n, tmp), o = 0;
	if (weight)
		*weight = len;
	for (size_t i = 0; i < len; i++) {
		char c = tmp[i];
		bool special = rule ? c == '$' && i + 1 < len : c == '*' || c == '$';
		if (special) {
			memcpy(out + o, c == '*' ? "%2A" : "%24", 3);
			o += 3;
		} else {
			out[o++] = c;
		}
	}
	out[o] = '\0';
	return o;
}

static void
add_group_rule(struct parse_state *ps, const char *v, size_t n, bool allow)
{
	/* An empty value is no rule: "Disallow:" allows everything. */
	if (n == 0)
		return;
	if (ps->scratch_cap < 6 * n + 2) {
		ps->scratch_cap = 6 * n + 2;
		free(ps->scratch);
		ps->scratch = wa_malloc(ps->scratch_cap);
	}
	size_t weight, len = norm_for_matching(v, n, ps->scratch, true, &weight);
	if (ps->group_mine)
		add_rule(&ps->mine, ps->scratch, len, weight, allow);
	if (ps->group_star)
		add_rule(&ps->star, ps->scratch, len, weight, allow);
}

static void
parse_line(struct robots *r, struct parse_state *ps, const char *line, size_t n)
{
	const char *k, *v;
	size_t klen, vlen;
	if (!split_line(line, n, &k, &klen, &v, &vlen))
		return;
	enum key key = classify(k, klen);
	if (key == KEY_SITEMAP) {
		if (vlen > 0)
			add_sitemap(r, v, vlen);
		return;
	}
	if (key == KEY_USER_AGENT) {
		if (!ps->in_agent_lines)
			ps->group_mine = ps->group_star = false;
		ps->in_agent_lines = ps->seen_agent = true;
		size_t t = token_length(v, vlen);
		if (vlen > 0 && v[0] == '*' && (vlen == 1 || is_blank((unsigned char)v[1])))
			ps->group_star = true;
		else if (same_token(v, t, ps->agent, ps->agentlen))
			ps->group_mine = ps->any_mine = true;
		return;
	}
	if (key == KEY_OTHER || !ps->seen_agent)
		return;
	if (key == KEY_CRAWL_DELAY) {
		/* Not a rule of RFC 9309, so it does not end the user-agent
		 * lines; it is the delay of the agents named so far. */
		double d;
		if (!parse_delay(v, vlen, &d))
			return;
		if (ps->group_mine && ps->mine.delay < 0)
			ps->mine.delay = d;
		if (ps->group_star && ps->star.delay < 0)
			ps->star.delay = d;
		return;
	}
	ps->in_agent_lines = false;
	add_group_rule(ps, v, vlen, key == KEY_ALLOW);
}

struct robots *
robots_parse(const char *body, size_t len, const char *agent)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	struct robots *r = wa_calloc(1, sizeof *r);
	struct parse_state ps = {
		.agent = agent,
		.agentlen = token_length(agent, strlen(agent)),
		.mine = { .delay = -1 },
		.star = { .delay = -1 },
	};
	size_t n = usable_length(body, len);
	size_t i = 0;
	/* A byte-order mark, or the start of one, is skipped (RFC 9309
	 * section 2.3 wants UTF-8; Google also skips a partial mark). */
	while (i < n && i < sizeof bom && (unsigned char)body[i] == bom[i])
		i++;
	while (i < n) {
		size_t start = i;
		while (i < n && body[i] != '\n' && body[i] != '\r')
			i++;
		parse_line(r, &ps, body + start, i - start);
		/* CR, LF and CRLF all end a line (RFC 9309 section 2.2). */
		if (i < n && body[i] == '\r') {
			i++;
			if (i < n && body[i] == '\n')
				i++;
		} else if (i < n) {
			i++;
		}
	}
	free(ps.scratch);
	if (ps.any_mine) {
		r->rules = ps.mine;
		free_rules(&ps.star);
	} else {
		r->rules = ps.star;
		free_rules(&ps.mine);
	}
	sort_rules(&r->rules);
	return r;
}

struct robots *
robots_all(bool allow)
{
	struct robots *r = wa_calloc(1, sizeof *r);
	r->rules.delay = -1;
	if (!allow)
		add_rule(&r->rules, "/", 1, 1, false);
	return r;
}

bool
robots_allowed(const struct robots *r, const char *path)
{
	size_t n = strlen(path);
	if (n == 0) {
		path = "/";
		n = 1;
	}
	char *norm = wa_malloc(6 * n + 2);
	n = norm_for_matching(path, n, norm, false, NULL);
	bool allowed = true;
	if (strcmp(norm, "/robots.txt") != 0) {
		for (size_t i = 0; i < r->rules.n; i++) {
			const struct rule *rule = &r->rules.v[i];
			if (pattern_matches(rule->pattern, rule->len, norm, n)) {
				allowed = rule->allow;
				break;
			}
		}
	}
	free(norm);
	return allowed;
}

double
robots_crawl_delay(const struct robots *r)
{
	return r->rules.delay;
}

size_t
robots_sitemap_count(const struct robots *r)
{
	return r->nsitemaps;
}

const char *
robots_sitemap(const struct robots *r, size_t i)
{
	return i < r->nsitemaps ? r->sitemaps[i] : NULL;
}

void
robots_free(struct robots *r)
{
	if (!r)
		return;
	free_rules(&r->rules);
	for (size_t i = 0; i < r->nsitemaps; i++)
		free(r->sitemaps[i]);
	free(r->sitemaps);
	free(r);
}

bool
robots_token_valid(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && token_length(s, n) == n;
}

char *
robots_agent_token(const char *ua)
{
	static const char compatible[] = "(compatible;";
	size_t m = sizeof compatible - 1;
	for (const char *p = ua; (p = strchr(p, '(')); p++) {
		if (strncasecmp(p, compatible, m) != 0)
			continue;
		const char *name = p + m;
		while (*name == ' ' || *name == '\t')
			name++;
		size_t n = token_length(name, strlen(name));
		if (n)
			return wa_strndup(name, n);
		break;
	}
	size_t n = token_length(ua, strlen(ua));
	return n ? wa_strndup(ua, n) : NULL;
}
