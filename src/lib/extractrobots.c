/* Robots directives of pages (extract_obey_robots_tags): meta robots,
 * rel="nofollow" and X-Robots-Tag, and the links of a document held
 * until its end, when a nofollow is known (extractpriv.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "extractpriv.h"
#include "msg.h"
#include "strmap.h"

/* A link of the document that is not followed: counted once per target
 * that no followed link of the page gives (see ex_document_end). */
void
ex_not_followed(struct extract *ex, const char *dst)
{
	if (strmap_find(&ex->seen, dst) == STRMAP_NONE)
		strmap_add(&ex->nofollowed, dst, NULL);
}

void
extract_obey_robots_tags(struct extract *ex, const char *agent)
{
	ex->obey = true;
	free(ex->agent);
	ex->agent = agent && *agent ? wa_strdup(agent) : NULL;
}

static bool
is_token_char(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '-';
}

/* The directives of a meta robots content or an X-Robots-Tag value:
 * words separated by commas or blanks, case-insensitive.  In a header, a
 * word of letters, '_' and '-' followed by a colon names the agent the
 * words after it apply to ("otherbot: noindex, nofollow"), up to the next
 * such name; the directives that take a value ("max-snippet: 20",
 * "unavailable_after: ...") are skipped to the next comma.  Unknown words
 * are ignored. */
void
ex_robots_directives(struct extract *ex, const char *p, size_t len, bool header)
{
	static const char *const valued[] = {
		"unavailable_after", "max-snippet", "max-image-preview",
		"max-video-preview",
	};
	const char *end = p + len;
	bool ours = true;
	while (p < end) {
		if (*p == ',' || *p == ':' || isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		const char *w = p;
		while (p < end && *p != ',' && *p != ':' && !isspace((unsigned char)*p))
			p++;
		size_t n = (size_t)(p - w);
		const char *q = p;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == ':') {
			bool is_valued = false;
			for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
				is_valued |= strlen(valued[i]) == n &&
				    strncasecmp(w, valued[i], n) == 0;
			bool name = header && !is_valued;
			for (size_t i = 0; name && i < n; i++)
				name = is_token_char(w[i]);
			if (name) {
				ours = ex->agent && strlen(ex->agent) == n &&
				    strncasecmp(w, ex->agent, n) == 0;
				p = q + 1;
				continue;
			}
			if (is_valued) {
				const char *comma = memchr(q, ',', (size_t)(end - q));
				p = comma ? comma : end;
				continue;
			}
		}
		if (!ours)
			continue;
		if ((n == 7 && strncasecmp(w, "noindex", 7) == 0) ||
		    (n == 4 && strncasecmp(w, "none", 4) == 0))
			ex->info->noindex = true;
		if ((n == 8 && strncasecmp(w, "nofollow", 8) == 0) ||
		    (n == 4 && strncasecmp(w, "none", 4) == 0))
			ex->info->nofollow = true;
	}
}

void
extract_x_robots_tag(struct extract *ex, const char *value, size_t len)
{
	if (ex->obey)
		ex_robots_directives(ex, value, len, true);
}

/* Whether a meta element's name is "robots" or our product token. */
bool
ex_meta_robots_name(const struct extract *ex, const char *name)
{
	return ex_equal_trimmed_ci(name, "robots") ||
	    (ex->agent && ex_equal_trimmed_ci(name, ex->agent));
}

/* Whether a rel attribute's space-separated tokens hold "nofollow". */
bool
ex_rel_nofollow(const char *rel)
{
	for (const char *p = rel; p && *p;) {
		while (isspace((unsigned char)*p))
			p++;
		size_t n = 0;
		while (p[n] && !isspace((unsigned char)p[n]))
			n++;
		if (n == 8 && strncasecmp(p, "nofollow", 8) == 0)
			return true;
		p += n;
	}
	return false;
}

/* The parse of a document begins: its links wait for its end, when a
 * meta robots element may have said nofollow. */
void
ex_document_begin(struct extract *ex)
{
	if (!ex->obey)
		return;
	ex->in_document = true;
	ex->pending = ex->seen.count;
	if (ex->nofollowed.count) {
		strmap_free(&ex->nofollowed, NULL);
		strmap_init(&ex->nofollowed);
	}
}

/* Gives the document's links in the order they came, or counts them
 * when the page said nofollow; then counts the targets of the links not
 * followed that no followed link gave. */
void
ex_document_end(struct extract *ex)
{
	struct extract_info *info = ex->info;
	if (!ex->in_document)
		return;
	ex->in_document = false;
	for (size_t i = ex->pending; i < ex->seen.count; i++) {
		struct strmap_entry *e = ex->seen.entry[i];
		if (info->nofollow) {
			info->nofollowed++;
		} else {
			info->outdeg++;
			ex->fn(ex->arg, ex->url, e->key, e->value);
		}
		free(e->value);
		e->value = NULL;
	}
	ex->pending = ex->seen.count;
	for (size_t i = 0; i < ex->nofollowed.count; i++)
		if (strmap_find(&ex->seen, strmap_key(&ex->nofollowed, i)) ==
		    STRMAP_NONE)
			info->nofollowed++;
}
