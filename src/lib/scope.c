/* The crawl scope (scope.h). */
#include "scope.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pagetype.h"
#include "url.h"

enum rule_kind { RULE_PREFIX, RULE_ERE, RULE_SUFFIX };

struct scope_rule {
	enum rule_kind kind;
	bool include;
	char *text;		/* the prefix, or the suffix in lower case */
	regex_t re;		/* RULE_ERE */
};

/* The scheme a prefix is compared under: https is read as http. */
static const char surt_scheme[] = "http://(";

void
scope_init(struct scope *s)
{
	*s = (struct scope){ NULL, 0, false };
}

/* The prefix as compared: "http://(" and the rest, the host part (up to
 * ')') in lower case as SURT keys have it. */
static char *
parse_prefix(const char *p, char *why, size_t why_size)
{
	size_t scheme = strncasecmp(p, "http://(", 8) == 0 ? 8 :
	    strncasecmp(p, "https://(", 9) == 0 ? 9 : 0;
	if (scheme == 0) {
		snprintf(why, why_size, "'%.200s' is no rule: a SURT prefix begins "
		    "with http://( or https://(, a regular expression with ~, a suffix "
		    "with '.'", p);
		return NULL;
	}
	char *out = wa_asprintf("%s%s", surt_scheme, p + scheme);
	for (char *c = out + sizeof surt_scheme - 1; *c && *c != ')'; c++) {
		*c = (char)tolower((unsigned char)*c);
		if (!isalnum((unsigned char)*c) && !strchr("-._~,:[]", *c)) {
			snprintf(why, why_size, "'%.200s': '%c' cannot be in the host "
			    "part of a SURT prefix", p, *c);
			free(out);
			return NULL;
		}
	}
	return out;
}

static char *
parse_suffix(const char *p, char *why, size_t why_size)
{
	size_t n = strlen(p);
	bool ok = n > 0 && n <= SCOPE_SUFFIX_MAX;
	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)p[i]);
	if (!ok) {
		snprintf(why, why_size, "'.%.200s' is no suffix: 1 to %d letters and digits",
		    p, SCOPE_SUFFIX_MAX);
		return NULL;
	}
	char *out = wa_strdup(p);
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return out;
}

bool
scope_add(struct scope *s, const char *rule, char *why, size_t why_size)
{
	struct scope_rule r = { .include = rule[0] == '+' };
	if (rule[0] != '+' && rule[0] != '-') {
		snprintf(why, why_size, "'%.200s' is no rule: it begins with + (include) "
		    "or - (exclude)", rule);
		return false;
	}
	const char *p = rule + 1;
	if (*p == '~') {
		r.kind = RULE_ERE;
		int err = p[1] ? regcomp(&r.re, p + 1, REG_EXTENDED | REG_NOSUB) : REG_BADPAT;
		if (err != 0) {
			char msg[200] = "it is empty";
			if (p[1])
				regerror(err, &r.re, msg, sizeof msg);
			snprintf(why, why_size, "'%.200s': bad extended regular expression: %s",
			    p + 1, msg);
			return false;
		}
	} else if (*p == '.') {
		r.kind = RULE_SUFFIX;
		if (!(r.text = parse_suffix(p + 1, why, why_size)))
			return false;
	} else {
		r.kind = RULE_PREFIX;
		if (!(r.text = parse_prefix(p, why, why_size)))
			return false;
	}
	s->rules = wa_reallocarray(s->rules, s->n + 1, sizeof *s->rules);
	s->rules[s->n++] = r;
	s->place_include |= r.include && r.kind != RULE_SUFFIX;
	return true;
}

void
scope_read(struct scope *s, const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		wa_die_errno("%s", path);
	char *line = NULL, why[512];
	size_t cap = 0;
	ssize_t len;
	for (unsigned long n = 1; (len = getline(&line, &cap, fp)) >= 0; n++) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len || strchr(line, '\r'))
			wa_die("%s:%lu: a %s", path, n, strchr(line, '\r') ?
			    "carriage return (CR LF line ends?)" : "NUL byte");
		if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
			continue;
		if (!scope_add(s, line, why, sizeof why))
			wa_die("%s:%lu: %s", path, n, why);
	}
	if (ferror(fp))
		wa_die_errno("%s", path);
	free(line);
	fclose(fp);
}

void
scope_option(struct scope *s, const char *option, char sign, const char *pattern)
{
	char why[512];
	char *rule = wa_asprintf("%c%s", sign, pattern);
	if (!scope_add(s, rule, why, sizeof why))
		wa_usage_error("%s: %s", option, why);
	free(rule);
}

bool
scope_surt(const char *url, char *out)
{
	char key[URL_BUFSIZE];
	if (!url_surt(url, key))
		return false;
	/* The key is HOST ")" [":" PORT] PATH; Heritrix writes the port
	 * before ')' and a ',' after every label of a name. */
	size_t host = strcspn(key, ")");
	const char *after = key + host + 1;
	size_t port = *after == ':' ? strcspn(after, "/") : 0;
	bool ip = key[0] == '[' || memchr(key, '.', host) != NULL;
	sprintf(out, "%s%.*s%s%.*s)%s", surt_scheme, (int)host, key, ip ? "" : ",",
	    (int)port, after, after + port);
	return true;
}

/* Whether the last path segment of url ends in "." suffix, with something
 * before the dot. */
static bool
has_suffix(const char *url, const char *suffix)
{
	const char *path = url_path(url);
	size_t end = strcspn(path, "?"), n = strlen(suffix);
	const char *seg = path + end;
	while (seg > path && seg[-1] != '/')
		seg--;
	if ((size_t)(path + end - seg) < n + 2)
		return false;
	const char *dot = path + end - n - 1;
	return *dot == '.' && strncasecmp(dot + 1, suffix, n) == 0;
}

enum scope_decision
scope_decide(const struct scope *s, const char *url)
{
	char surt[URL_BUFSIZE + 16];
	bool have_surt = false;
	int place = -1, suffix = -1;	/* the deciding rule's include, or -1 */

	for (size_t i = 0; i < s->n; i++) {
		const struct scope_rule *r = &s->rules[i];
		switch (r->kind) {
		case RULE_PREFIX:
			if (!have_surt && !(have_surt = scope_surt(url, surt)))
				return SCOPE_OUT;
			if (strncmp(surt, r->text, strlen(r->text)) == 0)
				place = r->include;
			break;
		case RULE_ERE:
			if (regexec(&r->re, url, 0, NULL, 0) == 0)
				place = r->include;
			break;
		case RULE_SUFFIX:
			if (has_suffix(url, r->text))
				suffix = r->include;
			break;
		}
	}
	if (place == 0 || (place < 0 && s->place_include) || suffix == 0)
		return SCOPE_OUT;
	if (suffix < 0 && page_not_document(url))
		return SCOPE_NOT_DOCUMENT;
	return SCOPE_IN;
}

void
scope_free(struct scope *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->rules[i].kind == RULE_ERE)
			regfree(&s->rules[i].re);
		free(s->rules[i].text);
	}
	free(s->rules);
	scope_init(s);
}
