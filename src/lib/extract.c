/* Links and page facts from HTML and XML documents (extract.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "extract.h"
#include "msg.h"
#include "strmap.h"
#include "url.h"
#include "utf8.h"

#define NS_XHTML "http://www.w3.org/1999/xhtml"
#define NS_XLINK "http://www.w3.org/1999/xlink"
#define NS_XSI "http://www.w3.org/2001/XMLSchema-instance"
#define NS_ATOM "http://www.w3.org/2005/Atom"
#define NS_RSS1 "http://purl.org/rss/1.0/"
#define NS_SITEMAP "http://www.sitemaps.org/schemas/sitemap/0.9"
#define NS_XINCLUDE "http://www.w3.org/2001/XInclude"
#define NS_XINCLUDE_OLD "http://www.w3.org/2003/XInclude"

/* xml:base values in force: the base of an element applies to its
 * subtree, so each entry is popped when its element ends. */
struct base_entry {
	size_t depth;
	char *url;
};

struct extract {
	extract_link_fn *fn;
	void *arg;
	struct extract_info *info;
	char url[URL_BUFSIZE];	/* the page */
	char base[URL_BUFSIZE];	/* the HTML base */
	bool html_base_seen;
	bool xml_page;
	struct strmap seen;	/* the targets the page has given */
	/* XML parsing state */
	struct base_entry *bases;
	size_t nbases, bases_cap;
	size_t depth;
	enum { ROOT_OTHER, ROOT_RSS, ROOT_SITEMAP } root_kind;
	const char *capture_how;	/* text of the element being read is a link */
	size_t capture_depth;
	char *text;
	size_t text_len, text_cap;
	bool text_too_long;
	xmlParserCtxtPtr ctxt;	/* the XML parser */
	size_t entity_bytes;	/* looked up on this page */
	char *scratch;		/* attribute values made strings */
	unsigned char *repaired;	/* an HTML page as prepare_html makes it */
	size_t repaired_cap;
	size_t scratch_cap;
	/* Robots directives (extract_obey_robots_tags) */
	bool obey;
	char *agent;		/* our product token, or NULL */
	bool in_document;	/* links now are the document's */
	bool link_nofollow;	/* the link being given has rel="nofollow" */
	size_t pending;		/* seen's first document link, not given yet */
	struct strmap nofollowed;	/* targets of links not followed */
};

struct extract *
extract_new(extract_link_fn *fn, void *arg)
{
	struct extract *ex = wa_calloc(1, sizeof *ex);
	ex->fn = fn;
	ex->arg = arg;
	strmap_init(&ex->seen);
	strmap_init(&ex->nofollowed);
	return ex;
}

static void
clear_bases(struct extract *ex)
{
	for (size_t i = 0; i < ex->nbases; i++)
		free(ex->bases[i].url);
	ex->nbases = 0;
}

void
extract_free(struct extract *ex)
{
	if (!ex)
		return;
	clear_bases(ex);
	free(ex->bases);
	strmap_free(&ex->seen, NULL);
	strmap_free(&ex->nofollowed, NULL);
	free(ex->agent);
	free(ex->text);
	free(ex->scratch);
	free(ex->repaired);
	free(ex);
}

void
extract_begin(struct extract *ex, const char *url, struct extract_info *info)
{
	memset(info, 0, sizeof *info);
	info->type = PAGE_OTHER;
	ex->info = info;
	snprintf(ex->url, sizeof ex->url, "%s", url);
	strcpy(ex->base, ex->url);
	ex->html_base_seen = false;
	ex->xml_page = false;
	/* strmap has no removal: a new map, when the last page used it. */
	if (ex->seen.count) {
		strmap_free(&ex->seen, NULL);
		strmap_init(&ex->seen);
	}
}


/* A link that cannot be resolved is counted, not reported: pages are full
 * of them. */
static bool
resolve(const char *base, const char *ref, char out[URL_BUFSIZE])
{
	const char *why;
	return url_resolve(base, ref, out, &why);
}

/* A link of the document that is not followed: counted once per target
 * that no followed link of the page gives (see document_end). */
static void
not_followed(struct extract *ex, const char *dst)
{
	if (strmap_find(&ex->seen, dst) == STRMAP_NONE)
		strmap_add(&ex->nofollowed, dst, NULL);
}

/* Resolves ref against base and gives it, once per page.  Another scheme
 * (mailto:, javascript:) is the usual drop; any other reason is kept for
 * the caller to report. */
static void
give(struct extract *ex, const char *base, const char *ref, const char *how)
{
	char dst[URL_BUFSIZE], how_xml[32];
	const char *why;
	if (!url_resolve(base, ref, dst, &why)) {
		struct extract_info *info = ex->info;
		info->dropped++;
		if (strcmp(why, "unsupported scheme") != 0 && info->refused++ == 0)
			snprintf(info->refused_first, sizeof info->refused_first,
			    "%s: %.60s%s", why, ref, strlen(ref) > 60 ? "..." : "");
		return;
	}
	if (ex->in_document && (ex->link_nofollow || ex->info->nofollow)) {
		not_followed(ex, dst);
		return;
	}
	bool added;
	size_t i = strmap_add(&ex->seen, dst, &added);
	if (!added)
		return;
	if (page_xml_suspect(dst, ex->xml_page)) {
		snprintf(how_xml, sizeof how_xml, "%s+xml", how);
		how = how_xml;
	}
	if (ex->in_document) {
		/* A meta robots element further on may yet say nofollow. */
		ex->seen.entry[i]->value = wa_strdup(how);
		return;
	}
	ex->info->outdeg++;
	ex->fn(ex->arg, ex->url, dst, how);
}

void
extract_link(struct extract *ex, const char *ref, const char *how)
{
	give(ex, ex->url, ref, how);
}

void
extract_robots(struct extract *ex, const unsigned char *body, size_t len)
{
	const char *p = (const char *)body, *end = p + len;
	char value[URL_BUFSIZE];
	ex->info->type = PAGE_ROBOTS;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		while (p < line_end && (*p == ' ' || *p == '\t'))
			p++;
		if (line_end - p > 8 && strncasecmp(p, "sitemap", 7) == 0) {
			const char *v = p + 7;
			while (v < line_end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < line_end && *v == ':') {
				v++;
				const char *ve = v;
				while (ve < line_end && *ve != '#')
					ve++;
				size_t n = (size_t)(ve - v);
				if (n < sizeof value) {
					memcpy(value, v, n);
					value[n] = '\0';
					give(ex, ex->url, value, "sitemap");
				}
			}
		}
		p = line_end + 1;
	}
}

/* ---- Deciding the type ---- */

static bool
starts_ci(const unsigned char *p, const unsigned char *end, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && strncasecmp((const char *)p, s, n) == 0;
}

/* What the first markup of a body says (the WHATWG MIME sniffing
 * algorithm's HTML patterns, plus XML and DTD). */
static enum page_type
sniff(const unsigned char *p, size_t len)
{
	static const char *const html_tags[] = {
		"html", "head", "body", "script", "iframe", "h1", "div", "font",
		"table", "a", "style", "title", "b", "br", "p", "meta", "link",
	};
	static const char *const dtd_decls[] = {
		"<!ELEMENT", "<!ATTLIST", "<!ENTITY", "<!NOTATION",
	};
	if (!len)
		return PAGE_OTHER;
	const unsigned char *end = p + (len < 4096 ? len : 4096);
	bool xml_decl = false;
	if (end - p >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	else if (end - p >= 2 && ((p[0] == 0xfe && p[1] == 0xff) ||
	    (p[0] == 0xff && p[1] == 0xfe)))
		return PAGE_XML;	/* UTF-16 text with markup: XML more likely */
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r' || *p == '\f'))
			p++;
		if (p >= end || *p != '<')
			return xml_decl ? PAGE_XML : PAGE_OTHER;
		if (starts_ci(p, end, "<?xml")) {
			xml_decl = true;
			const unsigned char *q = memmem(p, (size_t)(end - p), "?>", 2);
			if (!q)
				return PAGE_XML;
			p = q + 2;
			continue;
		}
		if (starts_ci(p, end, "<!--")) {
			const unsigned char *q = memmem(p, (size_t)(end - p), "-->", 3);
			if (!q)
				return xml_decl ? PAGE_XML : PAGE_OTHER;
			p = q + 3;
			continue;
		}
		for (size_t i = 0; i < sizeof dtd_decls / sizeof *dtd_decls; i++)
			if (starts_ci(p, end, dtd_decls[i]))
				return PAGE_DTD;
		if (starts_ci(p, end, "<!DOCTYPE")) {
			const unsigned char *q = p + 9;
			while (q < end && isspace(*q))
				q++;
			if (starts_ci(q, end, "html") && (q + 4 == end ||
			    !isalnum(q[4])) && !xml_decl)
				return PAGE_HTML;
			return PAGE_XML;
		}
		if (xml_decl)
			return PAGE_XML;
		const unsigned char *name = p + 1, *q = name;
		while (q < end && (isalnum(*q) || *q == ':' || *q == '-' || *q == '_'))
			q++;
		if (q == name || (q < end && *q != '>' && *q != '/' && !isspace(*q)))
			return PAGE_OTHER;
		for (size_t i = 0; i < sizeof html_tags / sizeof *html_tags; i++)
			if (strlen(html_tags[i]) == (size_t)(q - name) &&
			    strncasecmp(html_tags[i], (const char *)name,
			    (size_t)(q - name)) == 0)
				return PAGE_HTML;
		return PAGE_XML;
	}
}

bool
extract_media_generic(const char *media)
{
	static const char *const generic[] = {
		"", "application/octet-stream", "binary/octet-stream",
		"application/unknown", "unknown/unknown", "application/x-unknown",
		"*/*", "application/binary", "application/force-download",
	};
	if (!media)
		return true;
	for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
		if (strcmp(media, generic[i]) == 0)
			return true;
	return false;
}

enum page_type
extract_type_of(const char *media, const char *url, const unsigned char *body,
    size_t len)
{
	if (!media)
		media = "";
	if (!page_media_document(media) && !extract_media_generic(media))
		return PAGE_OTHER;
	if (strcmp(media, "text/html") == 0)
		return PAGE_HTML;
	if (strcmp(media, "application/xml-dtd") == 0)
		return PAGE_DTD;
	size_t n = strlen(media);
	const char *slash = strchr(media, '/');
	if (slash && (strcmp(slash, "/xml") == 0 ||
	    (n > 4 && strcmp(media + n - 4, "+xml") == 0)))
		return PAGE_XML;
	if (!extract_media_generic(media))
		return PAGE_OTHER;
	enum page_type t = sniff(body, len);
	if (t == PAGE_OTHER && url) {
		/* A DTD may well begin with a parameter entity reference. */
		size_t path = strcspn(url, "?");
		if (path > 4 && strncasecmp(url + path - 4, ".dtd", 4) == 0)
			return PAGE_DTD;
	}
	return t;
}

/* ---- HTML and XHTML elements ---- */

static const char *
attr(const char *const *atts, const char *name)
{
	for (; atts && atts[0]; atts += 2)
		if (strcmp(atts[0], name) == 0)
			return atts[1] ? atts[1] : "";
	return NULL;
}

static bool
equal_trimmed_ci(const char *s, const char *word)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(word);
	if (strncasecmp(s, word, n) != 0)
		return false;
	for (s += n; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* The URL of a meta refresh's content, as the WHATWG "shared declarative
 * refresh steps" parse it: "5; url='next.html'"; NULL if there is none. */
static char *
refresh_url(const char *content, char *out, size_t size)
{
	const char *p = content;
	while (isspace((unsigned char)*p))
		p++;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == ';' || *p == ',')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	if (strncasecmp(p, "url", 3) == 0) {
		const char *q = p + 3;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '=') {
			q++;
			while (isspace((unsigned char)*q))
				q++;
			p = q;
		}
	}
	char quote = 0;
	if (*p == '"' || *p == '\'')
		quote = *p++;
	size_t n = quote ? strcspn(p, quote == '"' ? "\"" : "'") : strlen(p);
	if (n == 0 || n >= size)
		return NULL;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* ---- Robots directives ---- */

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
static void
robots_directives(struct extract *ex, const char *p, size_t len, bool header)
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
		robots_directives(ex, value, len, true);
}

/* Whether a meta element's name is "robots" or our product token. */
static bool
meta_robots_name(const struct extract *ex, const char *name)
{
	return equal_trimmed_ci(name, "robots") ||
	    (ex->agent && equal_trimmed_ci(name, ex->agent));
}

/* Whether a rel attribute's space-separated tokens hold "nofollow". */
static bool
rel_nofollow(const char *rel)
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
static void
document_begin(struct extract *ex)
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
static void
document_end(struct extract *ex)
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

/* An HTML element (name in lower case) with its attributes as name, value
 * pairs; base is the base for its links (for XHTML, xml:base's). */
static void
html_element(struct extract *ex, const char *name, const char *const *atts,
    const char *base)
{
	const char *v;
	char buf[URL_BUFSIZE];
	switch (name[0]) {
	case 'a':
		if ((strcmp(name, "a") == 0 || strcmp(name, "area") == 0) &&
		    (v = attr(atts, "href"))) {
			ex->link_nofollow = ex->obey && rel_nofollow(attr(atts, "rel"));
			give(ex, base, v, name);
			ex->link_nofollow = false;
		}
		break;
	case 'b':
		if (strcmp(name, "base") == 0 && !ex->html_base_seen &&
		    (v = attr(atts, "href"))) {
			/* Only the first base element with an href counts. */
			ex->html_base_seen = true;
			if (resolve(ex->url, v, buf))
				strcpy(ex->base, buf);
		}
		break;
	case 'f':
		if (strcmp(name, "frame") == 0 && (v = attr(atts, "src")))
			give(ex, base, v, name);
		else if (strcmp(name, "form") == 0 && (v = attr(atts, "action"))) {
			const char *method = attr(atts, "method");
			if (!method || equal_trimmed_ci(method, "get"))
				give(ex, base, v, "form");
		}
		break;
	case 'i':
		if (strcmp(name, "iframe") == 0 && (v = attr(atts, "src")))
			give(ex, base, v, name);
		break;
	case 'l':
		if (strcmp(name, "link") == 0 && (v = attr(atts, "href")))
			give(ex, base, v, name);
		break;
	case 'm':
		if (strcmp(name, "meta") == 0 && (v = attr(atts, "http-equiv")) &&
		    equal_trimmed_ci(v, "refresh") && (v = attr(atts, "content")) &&
		    refresh_url(v, buf, sizeof buf))
			give(ex, base, buf, "refresh");
		else if (ex->obey && strcmp(name, "meta") == 0 &&
		    (v = attr(atts, "name")) && meta_robots_name(ex, v) &&
		    (v = attr(atts, "content")))
			robots_directives(ex, v, strlen(v), false);
		break;
	}
}

/* Stops the parse: the page is of type error for why, its links so far
 * are kept. */
static void
stop_parse(struct extract *ex, xmlParserCtxtPtr ctxt, const char *why)
{
	ex->info->type = PAGE_ERROR;
	snprintf(ex->info->error, sizeof ex->info->error, "line %d: %s",
	    xmlSAX2GetLineNumber(ctxt), why);
	xmlStopParser(ctxt);
}

static void
html_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct extract *ex = ctxt->_private;
	if (ctxt->nameNr > EXTRACT_MAX_DEPTH) {
		char why[80];
		snprintf(why, sizeof why, "elements nested deeper than %d: the "
		    "rest is not parsed", EXTRACT_MAX_DEPTH);
		stop_parse(ex, ctxt, why);
		return;
	}
	html_element(ex, (const char *)name, (const char *const *)atts, ex->base);
}

/* ---- XML ---- */

/* xml:base, else the base element's href of XHTML, else the page. */
static const char *
current_base(const struct extract *ex)
{
	return ex->nbases ? ex->bases[ex->nbases - 1].url : ex->base;
}

static void
text_append(struct extract *ex, const char *s, size_t n)
{
	if (ex->text_too_long || ex->text_len + n > URL_MAX + 256) {
		ex->text_too_long = true;
		return;
	}
	if (ex->text_len + n + 1 > ex->text_cap) {
		ex->text_cap = (ex->text_len + n + 1) * 2;
		ex->text = wa_realloc(ex->text, ex->text_cap);
	}
	memcpy(ex->text + ex->text_len, s, n);
	ex->text_len += n;
	ex->text[ex->text_len] = '\0';
}

static void
xml_characters(void *ctx, const xmlChar *s, int n)
{
	struct extract *ex = ((xmlParserCtxtPtr)ctx)->_private;
	if (ex->capture_how)
		text_append(ex, (const char *)s, (size_t)n);
}

static bool
ns_is(const xmlChar *uri, const char *ns)
{
	return uri && strcmp((const char *)uri, ns) == 0;
}

/* The value of a SAX2 attribute as a string of its own, valid until the
 * next call.  Without XML_PARSE_NOENT the parser leaves entity references
 * in attribute values (and '&' as "&#38;") for the tree to keep; they are
 * expanded here with the parser's own limits on expansion. */
static const char *
attr_value(struct extract *ex, const xmlChar **a)
{
	const xmlChar *v = a[3];
	size_t n = (size_t)(a[4] - a[3]);
	xmlChar *decoded = NULL;
	if (memchr(v, '&', n)) {
		xmlParserCtxtPtr ctxt = ex->ctxt;
		int saved = ctxt->replaceEntities;
		ctxt->replaceEntities = 1;
		decoded = xmlStringLenDecodeEntities(ctxt, v, (int)n,
		    XML_SUBSTITUTE_REF, 0, 0, 0);
		ctxt->replaceEntities = saved;
		v = decoded ? decoded : (const xmlChar *)"";
		n = strlen((const char *)v);
	}
	if (n + 1 > ex->scratch_cap) {
		ex->scratch_cap = (n + 1) * 2;
		ex->scratch = wa_realloc(ex->scratch, ex->scratch_cap);
	}
	memcpy(ex->scratch, v, n);
	ex->scratch[n] = '\0';
	xmlFree(decoded);
	return ex->scratch;
}

static void
schema_locations(struct extract *ex, const char *v, bool pairs)
{
	char loc[URL_BUFSIZE];
	size_t i = 0;
	for (const char *p = v;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " \t\n\r");
		/* schemaLocation pairs a namespace with a location. */
		if ((!pairs || i % 2 == 1) && n < sizeof loc) {
			memcpy(loc, p, n);
			loc[n] = '\0';
			give(ex, current_base(ex), loc, "schema");
		}
		i++;
		p += n;
	}
}

/* The text of the element starting now is a link. */
static void
start_capture(struct extract *ex, const char *how)
{
	if (ex->capture_how)
		return;
	ex->capture_how = how;
	ex->capture_depth = ex->depth;
	ex->text_len = 0;
	ex->text_too_long = false;
}

static void
set_root(struct extract *ex, const xmlChar *localname, const xmlChar *prefix,
    const xmlChar *uri)
{
	struct extract_info *info = ex->info;
	snprintf(info->root, sizeof info->root, "%s%s%s",
	    prefix ? (const char *)prefix : "", prefix ? ":" : "",
	    (const char *)localname);
	if (!*info->doctype && uri && !strpbrk((const char *)uri, " \t\r\n") &&
	    strlen((const char *)uri) < sizeof info->doctype)
		strcpy(info->doctype, (const char *)uri);
	const char *l = (const char *)localname;
	if ((!uri || ns_is(uri, NS_SITEMAP)) && (strcmp(l, "urlset") == 0 ||
	    strcmp(l, "sitemapindex") == 0))
		ex->root_kind = ROOT_SITEMAP;
	else if (strcmp(l, "rss") == 0 || strcmp(l, "RDF") == 0)
		ex->root_kind = ROOT_RSS;
	else
		ex->root_kind = ROOT_OTHER;
}

static void
xml_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
    const xmlChar *uri, int nns, const xmlChar **ns, int nattr, int ndef,
    const xmlChar **attrs)
{
	struct extract *ex = ((xmlParserCtxtPtr)ctx)->_private;
	const char *l = (const char *)localname;
	(void)nns;
	(void)ns;
	(void)ndef;
	if (ex->depth++ == 0)
		set_root(ex, localname, prefix, uri);

	for (int i = 0; i < nattr; i++) {
		const xmlChar **a = attrs + 5 * i;
		if (ns_is(a[2], (const char *)XML_XML_NAMESPACE) &&
		    strcmp((const char *)a[0], "base") == 0) {
			char buf[URL_BUFSIZE];
			if (!resolve(current_base(ex), attr_value(ex, a), buf))
				break;
			if (ex->nbases == ex->bases_cap) {
				ex->bases_cap = ex->bases_cap ? 2 * ex->bases_cap : 8;
				ex->bases = wa_reallocarray(ex->bases, ex->bases_cap,
				    sizeof *ex->bases);
			}
			ex->bases[ex->nbases].depth = ex->depth;
			ex->bases[ex->nbases++].url = wa_strdup(buf);
			break;
		}
	}
	const char *base = current_base(ex);

	if (ns_is(uri, NS_XHTML)) {
		/* The HTML forms, from the attributes in no namespace that
		 * html_element reads; XML allows each name once. */
		static const char *const wanted[] = {
			"href", "src", "action", "method", "http-equiv", "content",
			"rel", "name",
		};
		enum { NWANTED = sizeof wanted / sizeof *wanted };
		const char *pairs[2 * NWANTED + 1];
		char *copy[NWANTED];
		int k = 0;
		for (int i = 0; i < nattr && k < NWANTED; i++) {
			const xmlChar **a = attrs + 5 * i;
			bool w = false;
			for (int j = 0; j < NWANTED; j++)
				w |= strcmp((const char *)a[0], wanted[j]) == 0;
			if (a[2] || !w)
				continue;
			copy[k] = wa_strdup(attr_value(ex, a));
			pairs[2 * k] = (const char *)a[0];
			pairs[2 * k + 1] = copy[k];
			k++;
		}
		pairs[2 * k] = NULL;
		html_element(ex, l, pairs, base);
		for (int i = 0; i < k; i++)
			free(copy[i]);
	} else if (ns_is(uri, NS_ATOM) && strcmp(l, "link") == 0) {
		const char *how = "atom";
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "rel") == 0 &&
			    equal_trimmed_ci(attr_value(ex, a), "enclosure"))
				how = "enclosure";
		}
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "href") == 0)
				give(ex, base, attr_value(ex, a), how);
		}
	} else if ((ns_is(uri, NS_XINCLUDE) || ns_is(uri, NS_XINCLUDE_OLD)) &&
	    strcmp(l, "include") == 0) {
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "href") == 0)
				give(ex, base, attr_value(ex, a), "xinclude");
		}
	} else if (ex->root_kind == ROOT_RSS && (!uri || ns_is(uri, NS_RSS1))) {
		if (strcmp(l, "link") == 0) {
			start_capture(ex, "rss");
		} else if (strcmp(l, "enclosure") == 0) {
			for (int i = 0; i < nattr; i++) {
				const xmlChar **a = attrs + 5 * i;
				if (!a[2] && strcmp((const char *)a[0], "url") == 0)
					give(ex, base, attr_value(ex, a), "enclosure");
			}
		}
	} else if (ex->root_kind == ROOT_SITEMAP && strcmp(l, "loc") == 0 &&
	    (!uri || ns_is(uri, NS_SITEMAP))) {
		start_capture(ex, "sitemap");
	}

	for (int i = 0; i < nattr; i++) {
		const xmlChar **a = attrs + 5 * i;
		const char *name = (const char *)a[0];
		if (ns_is(a[2], NS_XLINK) && strcmp(name, "href") == 0)
			give(ex, base, attr_value(ex, a), "xlink");
		else if (ns_is(a[2], NS_XSI) && strcmp(name, "schemaLocation") == 0)
			schema_locations(ex, attr_value(ex, a), true);
		else if (ns_is(a[2], NS_XSI) &&
		    strcmp(name, "noNamespaceSchemaLocation") == 0)
			schema_locations(ex, attr_value(ex, a), false);
	}
}

static void
xml_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
    const xmlChar *uri)
{
	struct extract *ex = ((xmlParserCtxtPtr)ctx)->_private;
	(void)localname;
	(void)prefix;
	(void)uri;
	if (ex->capture_how && ex->capture_depth == ex->depth) {
		if (!ex->text_too_long && ex->text_len)
			give(ex, current_base(ex), ex->text, ex->capture_how);
		ex->capture_how = NULL;
		ex->capture_depth = 0;
		ex->text_len = 0;
	}
	if (ex->nbases && ex->bases[ex->nbases - 1].depth == ex->depth) {
		ex->nbases--;
		free(ex->bases[ex->nbases].url);
	}
	ex->depth--;
}

/* The value of the pseudo-attribute name in a processing instruction's
 * data, with the predefined entities decoded; false if absent. */
static bool
pseudo_attr(const char *data, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	for (const char *p = data; (p = strstr(p, name)); p += n) {
		if (p != data && !isspace((unsigned char)p[-1]))
			continue;
		const char *q = p + n;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '=')
			continue;
		q++;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '"' && *q != '\'')
			return false;
		char quote = *q++;
		size_t len = 0;
		while (*q && *q != quote) {
			static const struct { const char *ent; char c; } ents[] = {
				{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
				{ "&quot;", '"' }, { "&apos;", '\'' },
			};
			char c = *q;
			size_t skip = 1;
			for (size_t i = 0; i < sizeof ents / sizeof *ents; i++)
				if (strncmp(q, ents[i].ent, strlen(ents[i].ent)) == 0) {
					c = ents[i].c;
					skip = strlen(ents[i].ent);
				}
			if (len + 1 >= size)
				return false;
			out[len++] = c;
			q += skip;
		}
		out[len] = '\0';
		return *q == quote;
	}
	return false;
}

static void
xml_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	struct extract *ex = ((xmlParserCtxtPtr)ctx)->_private;
	char href[URL_BUFSIZE];
	if (data && strcmp((const char *)target, "xml-stylesheet") == 0 &&
	    pseudo_attr((const char *)data, "href", href, sizeof href))
		give(ex, current_base(ex), href, "stylesheet");
}

static void
xml_internal_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
    const xmlChar *system_id)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct extract *ex = ctxt->_private;
	/* The entity declarations need the document's DTD node. */
	xmlSAX2InternalSubset(ctx, name, external_id, system_id);
	if (!system_id)
		return;
	char dst[URL_BUFSIZE];
	if (resolve(ex->url, (const char *)system_id, dst))
		strcpy(ex->info->doctype, dst);
	give(ex, ex->url, (const char *)system_id, "doctype");
}

/* Every entity reference goes through here, in content, in attributes
 * and in attr_value's expansion: the page's budget of replacement text
 * bounds the work of them all. */
static xmlEntityPtr
budgeted_entity(void *ctx, const xmlChar *name)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct extract *ex = ctxt->_private;
	xmlEntityPtr ent = xmlSAX2GetEntity(ctx, name);
	if (!ent || ent->etype == XML_INTERNAL_PREDEFINED_ENTITY)
		return ent;
	ex->entity_bytes += (size_t)ent->length + 1;
	if (ex->entity_bytes > EXTRACT_ENTITY_BUDGET) {
		char why[80];
		snprintf(why, sizeof why, "entities expand to more than %d bytes: "
		    "the rest is not parsed", EXTRACT_ENTITY_BUDGET);
		if (!ctxt->disableSAX)
			stop_parse(ex, ctxt, why);
		return NULL;
	}
	return ent;
}

/* External entities and DTDs are never read. */
static xmlParserInputPtr
no_entity_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	(void)url;
	(void)id;
	(void)ctxt;
	return NULL;
}

static void
silent(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static void
set_error(struct extract *ex, xmlParserCtxtPtr ctxt, const char *fallback)
{
	const xmlError *e = ctxt ? xmlCtxtGetLastError(ctxt) : NULL;
	ex->info->type = PAGE_ERROR;
	if (e && e->message) {
		snprintf(ex->info->error, sizeof ex->info->error, "line %d: %s",
		    e->line, e->message);
		/* libxml2's messages end with a newline, and some have one
		 * inside ("...indicate encoding !\nBytes: 0xFF"): the
		 * report is one line. */
		size_t n = strlen(ex->info->error);
		while (n && (ex->info->error[n - 1] == '\n' ||
		    ex->info->error[n - 1] == ' '))
			ex->info->error[--n] = '\0';
		for (char *c = ex->info->error; (c = strchr(c, '\n'));)
			*c = ' ';
	} else {
		snprintf(ex->info->error, sizeof ex->info->error, "%s", fallback);
	}
}

/* The charset to parse with: the HTTP header's, else the byte order
 * mark's (which is skipped); NULL lets the document say (meta charset,
 * XML declaration) or libxml2 guess. */
static const char *
charset_of(const char *http, const unsigned char **body, size_t *len)
{
	const unsigned char *p = *body;
	if (http && *http)
		return http;
	if (*len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		*body += 3;
		*len -= 3;
		return "UTF-8";
	}
	if (*len >= 2 && p[0] == 0xfe && p[1] == 0xff) {
		*body += 2;
		*len -= 2;
		return "UTF-16BE";
	}
	if (*len >= 2 && p[0] == 0xff && p[1] == 0xfe) {
		*body += 2;
		*len -= 2;
		return "UTF-16LE";
	}
	return NULL;
}

static bool
is_utf8_name(const char *charset)
{
	return strcasecmp(charset, "utf-8") == 0 || strcasecmp(charset, "utf8") == 0;
}

/* Whether the start of an HTML body names UTF-8 in a meta element, as
 * the prescan of the WHATWG encoding sniffing algorithm finds it
 * (simplified: the first 1024 bytes, a "charset" in a <meta> tag, then
 * '=', then the name, quoted or not). */
static bool
meta_says_utf8(const unsigned char *body, size_t len)
{
	const char *p = (const char *)body, *end = p + (len < 1024 ? len : 1024);
	while ((p = memchr(p, '<', (size_t)(end - p))) && end - p > 5) {
		const char *tag = p++;
		if (strncasecmp(tag, "<meta", 5) != 0)
			continue;
		const char *gt = memchr(tag, '>', (size_t)(end - tag));
		const char *te = gt ? gt : end;
		for (const char *c = tag + 5; te - c > 7; c++) {
			if (strncasecmp(c, "charset", 7) != 0)
				continue;
			const char *v = c + 7;
			while (v < te && isspace((unsigned char)*v))
				v++;
			if (v == te || *v++ != '=')
				continue;
			while (v < te && (isspace((unsigned char)*v) || *v == '"' || *v == '\''))
				v++;
			size_t n = (size_t)(te - v);
			return (n >= 5 && strncasecmp(v, "utf-8", 5) == 0) ||
			    (n >= 4 && strncasecmp(v, "utf8", 4) == 0);
		}
	}
	return false;
}

/* The code points that the HTML standard's numeric character reference
 * end state gives for the references to U+0080..U+009F: the characters of
 * windows-1252 at those bytes (the five it leaves undefined stay). */
static const uint16_t c1_windows1252[32] = {
	0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
	0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
};

/* If the numeric character reference at p ("&#65;", "&#x41", with or
 * without its ';') is one that libxml2's HTML parser reads otherwise than
 * the HTML standard, its length, with the replacement in rep (*rlen
 * bytes); else 0.  libxml2 takes the references to U+0080..U+009F for
 * those C1 controls, and gives U+0000 for a zero, a surrogate, a value
 * past U+10FFFF, a C0 control or U+FFFE/U+FFFF, which ends the attribute
 * value it is in; the standard gives U+FFFD for the first three and keeps
 * the controls.  The replacement is a reference libxml2 reads right, or
 * the control's own byte: so it holds in every ASCII-compatible charset.
 * U+FFFE and U+FFFF, which no such reference can give, become U+FFFD. */
static size_t
charref_fix(const unsigned char *p, const unsigned char *end, char rep[16],
    size_t *rlen)
{
	const unsigned char *q = p + 2;
	bool hex = q < end && (*q == 'x' || *q == 'X');
	uint32_t v = 0;
	if (hex)
		q++;
	const unsigned char *digits = q;
	for (; q < end && (hex ? isxdigit(*q) : isdigit(*q)); q++)
		if (v <= 0x10ffff)	/* past it, the value is too large anyway */
			v = v * (hex ? 16 : 10) +
			    (uint32_t)(isdigit(*q) ? *q - '0' : tolower(*q) - 'a' + 10);
	if (q == digits)
		return 0;
	if (q < end && *q == ';')
		q++;
	uint32_t c = v;
	if (v == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ||
	    v == 0xfffe || v == 0xffff)
		c = 0xfffd;
	else if (v >= 0x80 && v <= 0x9f)
		c = c1_windows1252[v - 0x80];
	if (c == v && xmlIsCharQ(v))
		return 0;
	if (c < 0x80) {
		rep[0] = (char)c;
		*rlen = 1;
	} else {
		*rlen = (size_t)snprintf(rep, 16, "&#x%X;", (unsigned)c);
	}
	return (size_t)(q - p);
}

/* Whether none of the 8 bytes of w is non-ASCII, NUL or '&'. */
static bool
plain8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t amp = w ^ (ones * '&');
	return !((w | ((w - ones) & ~w) | ((amp - ones) & ~amp)) & highs);
}

/* An HTML page in an ASCII-compatible charset made what libxml2's HTML
 * parser reads as the HTML standard's tokenizer does, into out (NULL:
 * only measured); returns its length and counts the changes in *fixes.
 * A NUL byte becomes U+FFFD, as the standard reads U+0000 in names and
 * values: libxml2 takes it for the end of the input in most places and
 * loses the rest of the page.  Numeric character references are fixed
 * (charref_fix).  In a UTF-8 page each invalid sequence becomes U+FFFD, as
 * browsers decode: libxml2 would read the bytes after a bad one as
 * ISO-8859-1, and the later non-ASCII links with them.  The page grows 3
 * times at most. */
static size_t
repair_html(const unsigned char *body, size_t len, bool utf8,
    unsigned char *out, size_t *fixes)
{
	static const char fffd[3] = { '\xef', '\xbf', '\xbd' };
	const unsigned char *p = body, *end = body + len, *run = body;
	size_t o = 0, n, part, rlen;
	char rep[16];
	*fixes = 0;
	while (p < end) {
		/* Pages are mostly plain ASCII: eight bytes a step through it. */
		uint64_t w;
		while (end - p >= 8 && (memcpy(&w, p, 8), plain8(w)))
			p += 8;
		if (p == end)
			break;
		if (*p == 0) {
			/* U+FFFD as the page's charset holds it: in UTF-8 its
			 * bytes, else a reference, while the page stays within
			 * 3 times its size; past that the page is more binary
			 * than text, and a NUL is dropped, as the standard
			 * drops it in text. */
			if (utf8)
				memcpy(rep, fffd, rlen = sizeof fffd);
			else if (o + (size_t)(p - run) + 8 + (size_t)(end - p - 1) <= 3 * len)
				memcpy(rep, "&#xFFFD;", rlen = 8);
			else
				rlen = 0;
			n = 1;
		} else if (*p == '&' && end - p > 2 && p[1] == '#' &&
		    (n = charref_fix(p, end, rep, &rlen))) {
			;
		} else if (*p >= 0x80 && utf8) {
			if ((n = utf8_sequence(p, end, &part))) {
				p += n;
				continue;
			}
			memcpy(rep, fffd, rlen = sizeof fffd);
			n = part;
		} else {
			p++;
			continue;
		}
		if (out) {
			memcpy(out + o, run, (size_t)(p - run));
			memcpy(out + o + (size_t)(p - run), rep, rlen);
		}
		o += (size_t)(p - run) + rlen;
		p += n;
		run = p;
		++*fixes;
	}
	if (out)
		memcpy(out + o, run, (size_t)(end - run));
	return o + (size_t)(end - run);
}

/* Whether a charset has characters of more than one byte each, some of
 * whose bytes are NUL: UTF-16 and UTF-32 by their names and their WHATWG
 * labels. */
static bool
is_wide(const char *charset)
{
	static const char *const prefixes[] = {
		"utf-16", "utf16", "utf-32", "utf32", "ucs-2", "ucs2", "ucs-4",
		"ucs4", "iso-10646-ucs", "csunicode", "unicodefeff", "unicodefffe",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncasecmp(charset, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return strcasecmp(charset, "unicode") == 0;
}

/* body as repair_html makes it, in ex->repaired; body itself if nothing
 * needs a change or its charset is wide (is_wide, or so detected by
 * libxml2 when none is named). */
static const unsigned char *
prepare_html(struct extract *ex, const char *charset, const unsigned char *body,
    size_t *len)
{
	xmlCharEncoding enc = charset || *len < 4 ? XML_CHAR_ENCODING_NONE :
	    xmlDetectCharEncoding(body, 4);
	if (charset ? is_wide(charset) : enc == XML_CHAR_ENCODING_UTF16LE ||
	    enc == XML_CHAR_ENCODING_UTF16BE || enc == XML_CHAR_ENCODING_UCS4LE ||
	    enc == XML_CHAR_ENCODING_UCS4BE || enc == XML_CHAR_ENCODING_UCS4_2143 ||
	    enc == XML_CHAR_ENCODING_UCS4_3412)
		return body;
	bool utf8 = charset ? is_utf8_name(charset) : meta_says_utf8(body, *len);
	size_t fixes, n = repair_html(body, *len, utf8, NULL, &fixes);
	if (!fixes)
		return body;
	if (n > ex->repaired_cap) {
		ex->repaired_cap = n;
		free(ex->repaired);
		ex->repaired = wa_malloc(ex->repaired_cap);
	}
	*len = repair_html(body, *len, utf8, ex->repaired, &fixes);
	return ex->repaired;
}

void
extract_document(struct extract *ex, enum page_type type,
    const char *http_charset, const unsigned char *body, size_t len)
{
	struct extract_info *info = ex->info;
	info->type = type;
	if (type != PAGE_HTML && type != PAGE_XML)
		return;
	xmlSetGenericErrorFunc(NULL, silent);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlSetExternalEntityLoader(no_entity_loader);
	const char *charset = charset_of(http_charset, &body, &len);
	if (type == PAGE_HTML && len <= INT32_MAX)
		body = prepare_html(ex, charset, body, &len);
	/* libxml2 counts a buffer in an int, the repaired copy too. */
	if (len > INT32_MAX) {
		set_error(ex, NULL, "document larger than 2 GB");
		return;
	}
	/* A charset libxml2 does not know is a server's mistake more often
	 * than the page's: the page is read as if none had been named. */
	xmlCharEncodingHandlerPtr handler = charset ?
	    xmlFindCharEncodingHandler(charset) : NULL;
	/* An empty buffer would make no context. */
	static const char nothing[] = " ";
	const char *buf = len ? (const char *)body : nothing;
	int buf_len = len ? (int)len : 1;
	xmlParserCtxtPtr ctxt;
	xmlSAXHandler sax;
	memset(&sax, 0, sizeof sax);
	if (type == PAGE_HTML) {
		ctxt = htmlCreateMemoryParserCtxt(buf, buf_len);
		if (!ctxt)
			wa_die("out of memory for an HTML parser");
		sax.startElement = html_start;
		sax.initialized = 1;
		*ctxt->sax = sax;
		htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		    HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
		    (handler ? HTML_PARSE_IGNORE_ENC : 0));
	} else {
		ctxt = xmlCreateMemoryParserCtxt(buf, buf_len);
		if (!ctxt)
			wa_die("out of memory for an XML parser");
		xmlSAXVersion(&sax, 2);
		sax.startElementNs = xml_start;
		sax.endElementNs = xml_end;
		sax.characters = xml_characters;
		sax.cdataBlock = xml_characters;
		sax.ignorableWhitespace = xml_characters;
		sax.processingInstruction = xml_pi;
		sax.internalSubset = xml_internal_subset;
		sax.getEntity = budgeted_entity;
		sax.comment = NULL;
		sax.reference = NULL;
		sax.startElement = NULL;
		sax.endElement = NULL;
		sax.error = NULL;
		sax.warning = NULL;
		sax.serror = NULL;
		*ctxt->sax = sax;
		xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR |
		    XML_PARSE_NOWARNING | XML_PARSE_NOCDATA |
		    (handler ? XML_PARSE_IGNORE_ENC : 0));
		ex->xml_page = true;
	}
	ctxt->_private = ex;
	ctxt->userData = ctxt;
	ex->ctxt = ctxt;
	if (handler)
		xmlSwitchToEncoding(ctxt, handler);
	ex->depth = 0;
	ex->entity_bytes = 0;
	ex->capture_how = NULL;
	ex->capture_depth = 0;
	ex->text_len = 0;
	ex->root_kind = ROOT_OTHER;
	document_begin(ex);
	if (type == PAGE_HTML) {
		htmlParseDocument(ctxt);
	} else if ((xmlParseDocument(ctxt) != 0 || !ctxt->wellFormed) &&
	    info->type != PAGE_ERROR) {
		set_error(ex, ctxt, "not well-formed");
	} else if (ex->root_kind == ROOT_SITEMAP && info->type == PAGE_XML) {
		info->type = PAGE_SITEMAP;
	}
	document_end(ex);
	clear_bases(ex);
	if (ctxt->myDoc)
		xmlFreeDoc(ctxt->myDoc);
	ctxt->myDoc = NULL;
	ex->ctxt = NULL;
	if (type == PAGE_HTML)
		htmlFreeParserCtxt(ctxt);
	else
		xmlFreeParserCtxt(ctxt);
}
