/* Links and page facts from HTML and XML documents (extract.h): the
 * driver, which the parts of extractpriv.h serve. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "extractpriv.h"
#include "linkstream.h"
#include "msg.h"
#include "strmap.h"
#include "url.h"

/* External entities and DTDs are never read. */
static xmlParserInputPtr
no_entity_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	(void)url;
	(void)id;
	(void)ctxt;
	return NULL;
}

struct extract *
extract_new(extract_link_fn *fn, void *arg)
{
	/* libxml2's initialisation and its entity loader belong to the
	 * process: set before any thread parses, not by each at once. */
	xmlInitParser();
	xmlSetExternalEntityLoader(no_entity_loader);
	struct extract *ex = wa_calloc(1, sizeof *ex);
	ex->fn = fn;
	ex->arg = arg;
	strmap_init(&ex->seen);
	strmap_init(&ex->nofollowed);
	return ex;
}

void
extract_free(struct extract *ex)
{
	if (!ex)
		return;
	ex_clear_bases(ex);
	free(ex->bases);
	strmap_free(&ex->seen, NULL);
	strmap_free(&ex->nofollowed, NULL);
	free(ex->agent);
	free(ex->text);
	free(ex->scratch);
	free(ex->repaired);
	htmltok_free(ex->tok);
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
bool
ex_resolve(const char *base, const char *ref, char out[URL_BUFSIZE])
{
	const char *why;
	return url_resolve(base, ref, out, &why);
}

/* Resolves ref against base and gives it, once per page.  Another scheme
 * (mailto:, javascript:) is the usual drop; any other reason is kept for
 * the caller to report. */
void
ex_give(struct extract *ex, const char *base, const char *ref, const char *how)
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
		ex_not_followed(ex, dst);
		return;
	}
	bool added;
	size_t i = strmap_add(&ex->seen, dst, &added);
	if (!added)
		return;
	if (page_xml_suspect(dst, ex->xml_page)) {
		snprintf(how_xml, sizeof how_xml, "%s" LINKS_XML_SUFFIX, how);
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
	ex_give(ex, ex->url, ref, how);
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
					ex_give(ex, ex->url, value, LINKS_HOW_SITEMAP);
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

/* Stops the parse: the page is of type error for why, its links so far
 * are kept. */
void
ex_stop_parse(struct extract *ex, xmlParserCtxtPtr ctxt, const char *why)
{
	ex->info->type = PAGE_ERROR;
	snprintf(ex->info->error, sizeof ex->info->error, "line %d: %s",
	    xmlSAX2GetLineNumber(ctxt), why);
	xmlStopParser(ctxt);
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

/* The parser of the type for the len bytes of body (len at most
 * INT32_MAX), with our callbacks and options, reading the charset of
 * handler if there is one. */
static xmlParserCtxtPtr
parser_new(struct extract *ex, enum page_type type, const unsigned char *body,
    size_t len, xmlCharEncodingHandlerPtr handler)
{
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
		ex_html_sax(&sax);
		*ctxt->sax = sax;
		htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		    HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
		    (handler ? HTML_PARSE_IGNORE_ENC : 0));
	} else {
		ctxt = xmlCreateMemoryParserCtxt(buf, buf_len);
		if (!ctxt)
			wa_die("out of memory for an XML parser");
		ex_xml_sax(&sax);
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
	return ctxt;
}

/* Runs the parser made by parser_new over its document, sets the page's
 * type from the outcome, and frees the parser. */
static void
parse(struct extract *ex, enum page_type type, xmlParserCtxtPtr ctxt)
{
	struct extract_info *info = ex->info;
	ex->depth = 0;
	ex->entity_bytes = 0;
	ex->capture_how = NULL;
	ex->capture_depth = 0;
	ex->text_len = 0;
	ex->root_kind = ROOT_OTHER;
	ex_document_begin(ex);
	if (type == PAGE_HTML) {
		htmlParseDocument(ctxt);
	} else if ((xmlParseDocument(ctxt) != 0 || !ctxt->wellFormed) &&
	    info->type != PAGE_ERROR) {
		set_error(ex, ctxt, "not well-formed");
	} else if (ex->root_kind == ROOT_SITEMAP && info->type == PAGE_XML) {
		info->type = PAGE_SITEMAP;
	}
	ex_document_end(ex);
	ex_clear_bases(ex);
	if (ctxt->myDoc)
		xmlFreeDoc(ctxt->myDoc);
	ctxt->myDoc = NULL;
	ex->ctxt = NULL;
	if (type == PAGE_HTML)
		htmlFreeParserCtxt(ctxt);
	else
		xmlFreeParserCtxt(ctxt);
}

void
extract_document(struct extract *ex, enum page_type type,
    const char *http_charset, const unsigned char *body, size_t len)
{
	ex->info->type = type;
	if (type != PAGE_HTML && type != PAGE_XML)
		return;
	xmlSetGenericErrorFunc(NULL, silent);
	xmlSetStructuredErrorFunc(NULL, NULL);
	const char *charset = charset_of(http_charset, &body, &len);
	if (type == PAGE_HTML && ex_html_tokenizable(charset, body, len)) {
		ex_document_begin(ex);
		ex_html_tokenize(ex, body, len);
		ex_document_end(ex);
		return;
	}
	if (type == PAGE_HTML && len <= INT32_MAX)
		body = ex_prepare_html(ex, charset, body, &len);
	/* libxml2 counts a buffer in an int, the repaired copy too. */
	if (len > INT32_MAX) {
		set_error(ex, NULL, "document larger than 2 GB");
		return;
	}
	/* A charset libxml2 does not know is a server's mistake more often
	 * than the page's: the page is read as if none had been named. */
	xmlCharEncodingHandlerPtr handler = charset ?
	    xmlFindCharEncodingHandler(charset) : NULL;
	parse(ex, type, parser_new(ex, type, body, len, handler));
}
