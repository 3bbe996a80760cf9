/* Links and page facts of XML documents: xml:base, XHTML, Atom and RSS
 * feeds, sitemaps, XInclude, XLink, schema locations, stylesheets and
 * the DTD, with a budget on entity expansion (extractpriv.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "extractpriv.h"
#include "linkstream.h"
#include "msg.h"

#define NS_XHTML "http://www.w3.org/1999/xhtml"
#define NS_XLINK "http://www.w3.org/1999/xlink"
#define NS_XSI "http://www.w3.org/2001/XMLSchema-instance"
#define NS_ATOM "http://www.w3.org/2005/Atom"
#define NS_RSS1 "http://purl.org/rss/1.0/"
#define NS_SITEMAP "http://www.sitemaps.org/schemas/sitemap/0.9"
#define NS_XINCLUDE "http://www.w3.org/2001/XInclude"
#define NS_XINCLUDE_OLD "http://www.w3.org/2003/XInclude"

/* The capture_how of a sitemap entry's <lastmod> and <changefreq>. */
static const char hint_lastmod[] = "lastmod", hint_changefreq[] = "changefreq";

void
ex_clear_bases(struct extract *ex)
{
	for (size_t i = 0; i < ex->nbases; i++)
		free(ex->bases[i].url);
	ex->nbases = 0;
}

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
			ex_give(ex, current_base(ex), loc, "schema");
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

void
extract_on_hints(struct extract *ex, extract_hint_fn *fn, void *arg)
{
	ex->hint_fn = fn;
	ex->hint_arg = arg;
}

/* No sitemap entry is being read: none began, or the last one ended. */
static void
sitemap_entry_clear(struct extract *ex)
{
	*ex->hint_loc = '\0';
	ex->hint = (struct hint_row){ .url = ex->hint_loc, .sitemap = ex->url,
	    .lastmod = -1 };
}

/* An element of a sitemap, in its namespace or none: a <loc> is a link;
 * with hints asked for, an entry (<url>, <sitemap>) begins, or its
 * <lastmod> or <changefreq>. */
static void
sitemap_element(struct extract *ex, const char *l)
{
	if (strcmp(l, "loc") == 0)
		start_capture(ex, LINKS_HOW_SITEMAP);
	if (!ex->hint_fn)
		return;
	if (ex->depth == 2 && (strcmp(l, "url") == 0 || strcmp(l, "sitemap") == 0))
		sitemap_entry_clear(ex);
	else if (ex->depth == 3 && strcmp(l, "lastmod") == 0) {
		start_capture(ex, hint_lastmod);
	} else if (ex->depth == 3 && strcmp(l, "changefreq") == 0) {
		start_capture(ex, hint_changefreq);
	}
}

/* A bad value of a sitemap entry, counted and the first one kept. */
static void
bad_hint(struct extract *ex, const char *what, const char *text)
{
	struct extract_info *info = ex->info;
	if (info->bad_hints++ == 0)
		snprintf(info->bad_hint_first, sizeof info->bad_hint_first,
		    "%s: %.60s%s", what, text, strlen(text) > 60 ? "..." : "");
}

/* The text of a sitemap entry's loc, lastmod or changefreq, read. */
static void
sitemap_text(struct extract *ex, const char *how, const char *text, size_t len)
{
	if (how == hint_lastmod) {
		if (!w3c_datetime(text, len, &ex->hint.lastmod)) {
			ex->hint.lastmod = -1;
			bad_hint(ex, "lastmod is no W3C datetime", text);
		}
	} else if (how == hint_changefreq) {
		if (!changefreq_rate(text, len, ex->hint.changefreq))
			bad_hint(ex, "changefreq is none of the protocol's", text);
	} else if (ex->depth == 3 && (!*text ||
	    !ex_resolve(current_base(ex), text, ex->hint_loc))) {
		*ex->hint_loc = '\0';
	}
}

/* The end of a sitemap entry: its hints, if it has any. */
static void
sitemap_entry_end(struct extract *ex)
{
	if (*ex->hint_loc && (ex->hint.lastmod >= 0 || *ex->hint.changefreq))
		ex->hint_fn(ex->hint_arg, &ex->hint);
	sitemap_entry_clear(ex);
}

static void
set_root(struct extract *ex, const xmlChar *localname, const xmlChar *prefix,
    const xmlChar *uri)
{
	struct extract_info *info = ex->info;
	sitemap_entry_clear(ex);
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
			if (!ex_resolve(current_base(ex), attr_value(ex, a), buf))
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
		 * ex_html_element reads; XML allows each name once. */
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
		ex_html_element(ex, l, pairs, base);
		for (int i = 0; i < k; i++)
			free(copy[i]);
	} else if (ns_is(uri, NS_ATOM) && strcmp(l, "link") == 0) {
		const char *how = "atom";
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "rel") == 0 &&
			    ex_equal_trimmed_ci(attr_value(ex, a), "enclosure"))
				how = "enclosure";
		}
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "href") == 0)
				ex_give(ex, base, attr_value(ex, a), how);
		}
	} else if ((ns_is(uri, NS_XINCLUDE) || ns_is(uri, NS_XINCLUDE_OLD)) &&
	    strcmp(l, "include") == 0) {
		for (int i = 0; i < nattr; i++) {
			const xmlChar **a = attrs + 5 * i;
			if (!a[2] && strcmp((const char *)a[0], "href") == 0)
				ex_give(ex, base, attr_value(ex, a), "xinclude");
		}
	} else if (ex->root_kind == ROOT_RSS && (!uri || ns_is(uri, NS_RSS1))) {
		if (strcmp(l, "link") == 0) {
			start_capture(ex, "rss");
		} else if (strcmp(l, "enclosure") == 0) {
			for (int i = 0; i < nattr; i++) {
				const xmlChar **a = attrs + 5 * i;
				if (!a[2] && strcmp((const char *)a[0], "url") == 0)
					ex_give(ex, base, attr_value(ex, a), "enclosure");
			}
		}
	} else if (ex->root_kind == ROOT_SITEMAP && (!uri || ns_is(uri, NS_SITEMAP))) {
		sitemap_element(ex, l);
	}

	for (int i = 0; i < nattr; i++) {
		const xmlChar **a = attrs + 5 * i;
		const char *name = (const char *)a[0];
		if (ns_is(a[2], NS_XLINK) && strcmp(name, "href") == 0)
			ex_give(ex, base, attr_value(ex, a), "xlink");
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
		const char *how = ex->capture_how;
		const char *text = ex->text_too_long || !ex->text_len ? "" : ex->text;
		if (*text && how != hint_lastmod && how != hint_changefreq)
			ex_give(ex, current_base(ex), text, how);
		if (ex->hint_fn && ex->root_kind == ROOT_SITEMAP)
			sitemap_text(ex, how, text, ex->text_too_long ? 0 : ex->text_len);
		ex->capture_how = NULL;
		ex->capture_depth = 0;
		ex->text_len = 0;
	}
	if (ex->hint_fn && ex->root_kind == ROOT_SITEMAP && ex->depth == 2)
		sitemap_entry_end(ex);
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
		ex_give(ex, current_base(ex), href, "stylesheet");
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
	if (ex_resolve(ex->url, (const char *)system_id, dst))
		strcpy(ex->info->doctype, dst);
	ex_give(ex, ex->url, (const char *)system_id, "doctype");
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
			ex_stop_parse(ex, ctxt, why);
		return NULL;
	}
	return ent;
}

void
ex_xml_sax(xmlSAXHandler *sax)
{
	xmlSAXVersion(sax, 2);
	sax->startElementNs = xml_start;
	sax->endElementNs = xml_end;
	sax->characters = xml_characters;
	sax->cdataBlock = xml_characters;
	sax->ignorableWhitespace = xml_characters;
	sax->processingInstruction = xml_pi;
	sax->internalSubset = xml_internal_subset;
	sax->getEntity = budgeted_entity;
	sax->comment = NULL;
	sax->reference = NULL;
	sax->startElement = NULL;
	sax->endElement = NULL;
	sax->error = NULL;
	sax->warning = NULL;
	sax->serror = NULL;
}
