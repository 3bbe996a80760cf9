/* html-oracle [-v] FILE...: compares, page by page, the link elements that
 * src/lib/htmltok.c finds in an HTML page (UTF-8) with those of the tree
 * that Google's Gumbo, an independent HTML5 parser, builds of it.
 *
 * A link element is an a, area, base, form, frame, iframe, link or meta
 * element in the HTML namespace, the elements that wa-extract reads; each
 * is told with the attributes it reads (href, rel, src, action, method,
 * http-equiv, name, content), in document order.  Gumbo parses as a parser
 * with scripting disabled, which reads the content of a noscript element as
 * markup; the tokenizer reads it as text, as browsers do, so the elements
 * inside a noscript element are left out of Gumbo's list.
 *
 * Prints "differ FILE" for each page whose lists differ (with -v, both
 * lists), then "pages N differ M"; exits 1 if any differs.
 *
 * html-oracle --bench FILE... measures the parse alone instead: the CPU
 * time of the tokenizer and of libxml2's HTML parser (SAX, a start
 * element callback that does nothing, the options wa-extract gives it)
 * over the pages held in memory, three rounds each, alternating; prints
 * the best of each in MB/s. */
#include <errno.h>
#include <gumbo.h>
#include <libxml/HTMLparser.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "htmltok.h"
#include "msg.h"

struct text {
	char *s;
	size_t len, cap;
};

static void
append(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = wa_realloc(t->s, t->cap);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static bool
is_link_element(const char *name)
{
	static const char *const names[] = {
		"a", "area", "base", "form", "frame", "iframe", "link", "meta",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* One line for the element: its name, then each attribute read, with
 * its value's tabs, newlines and backslashes escaped. */
static void
describe(struct text *out, const char *name, const char *const *atts)
{
	static const char *const read[] = {
		"href", "rel", "src", "action", "method", "http-equiv", "name",
		"content",
	};
	if (!is_link_element(name))
		return;
	append(out, name, strlen(name));
	for (size_t r = 0; r < sizeof read / sizeof *read; r++)
		for (const char *const *a = atts; a[0]; a += 2) {
			if (strcmp(a[0], read[r]) != 0)
				continue;
			append(out, "\t", 1);
			append(out, a[0], strlen(a[0]));
			append(out, "=", 1);
			for (const char *c = a[1]; *c; c++) {
				const char *esc = *c == '\t' ? "\\t" : *c == '\n' ? "\\n" :
				    *c == '\\' ? "\\\\" : NULL;
				append(out, esc ? esc : c, esc ? 2 : 1);
			}
			break;
		}
	append(out, "\n", 1);
}

static void
from_tokenizer(void *arg, const char *name, const char *const *atts)
{
	describe(arg, name, atts);
}

/* A link element of Gumbo's tree, by the offset of its start tag. */
struct found {
	size_t offset;
	struct text line;
};

struct found_list {
	struct found *v;
	size_t n, cap;
};

static void
collect(struct found_list *list, const GumboNode *node)
{
	if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE &&
	    node->type != GUMBO_NODE_DOCUMENT)
		return;
	const GumboVector *children = node->type == GUMBO_NODE_DOCUMENT ?
	    &node->v.document.children : &node->v.element.children;
	/* The copies of a elements that the tree builder makes (reconstructed
	 * formatting elements, the adoption agency's clones) have no start
	 * tag of their own; their links are the original's. */
	const unsigned copies = GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT |
	    GUMBO_INSERTION_ADOPTION_AGENCY_CLONED;
	if (node->type != GUMBO_NODE_DOCUMENT && !(node->parse_flags & copies)) {
		const GumboElement *e = &node->v.element;
		if (e->tag_namespace == GUMBO_NAMESPACE_HTML) {
			if (e->tag == GUMBO_TAG_NOSCRIPT)
				return;
			const GumboVector *attrs = &e->attributes;
			const char **atts = wa_malloc((2 * attrs->length + 1) * sizeof *atts);
			for (unsigned i = 0; i < attrs->length; i++) {
				const GumboAttribute *a = attrs->data[i];
				atts[2 * i] = a->name;
				atts[2 * i + 1] = a->value;
			}
			atts[2 * attrs->length] = NULL;
			struct found f = { e->start_pos.offset, { 0 } };
			describe(&f.line, gumbo_normalized_tagname(e->tag), atts);
			free(atts);
			if (f.line.len) {
				if (list->n == list->cap)
					list->v = wa_realloc(list->v, (list->cap = 2 * list->cap + 16) *
					    sizeof *list->v);
				list->v[list->n++] = f;
			}
		}
	}
	for (unsigned i = 0; i < children->length; i++)
		collect(list, children->data[i]);
}

static int
by_offset(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Gumbo's link elements in the order of their start tags in the page, the
 * order in which a tokenizer meets them (the tree's order differs where
 * the tree builder moves an element: foster parenting, the adoption
 * agency). */
static void
from_gumbo(struct text *out, const GumboNode *document)
{
	struct found_list list = { 0 };
	collect(&list, document);
	if (list.n)
		qsort(list.v, list.n, sizeof *list.v, by_offset);
	for (size_t i = 0; i < list.n; i++) {
		append(out, list.v[i].line.s, list.v[i].line.len);
		free(list.v[i].line.s);
	}
	free(list.v);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		wa_die("%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t cap = 0, n;
	*len = 0;
	do {
		if (*len + 65536 > cap)
			buf = wa_realloc(buf, cap = (*len + 65536) * 2);
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f))
		wa_die("%s: read error", path);
	fclose(f);
	return buf;
}

static void
ignore_element(void *arg, const char *name, const char *const *atts)
{
	(void)arg;
	(void)name;
	(void)atts;
}

static void
ignore_sax_element(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	(void)ctx;
	(void)name;
	(void)atts;
}

static void
ignore_message(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static double
cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
libxml2_parse(const char *html, size_t len)
{
	htmlParserCtxtPtr ctxt = htmlCreateMemoryParserCtxt(len ? html : " ",
	    len ? (int)len : 1);
	xmlSAXHandler sax;
	memset(&sax, 0, sizeof sax);
	sax.startElement = ignore_sax_element;
	sax.initialized = 1;
	*ctxt->sax = sax;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
	    HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
	htmlParseDocument(ctxt);
	if (ctxt->myDoc)
		xmlFreeDoc(ctxt->myDoc);
	htmlFreeParserCtxt(ctxt);
}

static int
bench(int n, char **paths)
{
	char **pages = wa_malloc((size_t)n * sizeof *pages);
	size_t *lens = wa_malloc((size_t)n * sizeof *lens), total = 0;
	for (int i = 0; i < n; i++)
		pages[i] = slurp(paths[i], &lens[i]);
	for (int i = 0; i < n; i++)
		total += lens[i];
	xmlSetGenericErrorFunc(NULL, ignore_message);
	struct htmltok *tok = htmltok_new();
	double best_tok = 1e30, best_xml = 1e30;
	for (int round = 0; round < 3; round++) {
		double t0 = cpu_seconds();
		for (int i = 0; i < n; i++)
			htmltok_parse(tok, (const unsigned char *)pages[i], lens[i],
			    ignore_element, NULL);
		double t1 = cpu_seconds();
		for (int i = 0; i < n; i++)
			libxml2_parse(pages[i], lens[i]);
		double t2 = cpu_seconds();
		if (t1 - t0 < best_tok)
			best_tok = t1 - t0;
		if (t2 - t1 < best_xml)
			best_xml = t2 - t1;
	}
	printf("pages %d bytes %zu\nhtmltok %.3f s %.1f MB/s\nlibxml2 %.3f s %.1f MB/s\n"
	    "ratio %.2f\n", n, total, best_tok, (double)total / best_tok / 1e6,
	    best_xml, (double)total / best_xml / 1e6, best_xml / best_tok);
	htmltok_free(tok);
	for (int i = 0; i < n; i++)
		free(pages[i]);
	free(pages);
	free(lens);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--bench") == 0)
		return bench(argc - 2, argv + 2);
	bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	struct htmltok *tok = htmltok_new();
	long pages = 0, differ = 0;
	for (int i = 1 + verbose; i < argc; i++) {
		size_t len;
		char *html = slurp(argv[i], &len);
		struct text mine = { 0 }, theirs = { 0 };
		append(&mine, "", 0);
		append(&theirs, "", 0);
		htmltok_parse(tok, (const unsigned char *)html, len, from_tokenizer, &mine);
		GumboOutput *g = gumbo_parse_with_options(&kGumboDefaultOptions, html, len);
		from_gumbo(&theirs, g->document);
		gumbo_destroy_output(&kGumboDefaultOptions, g);
		pages++;
		if (strcmp(mine.s, theirs.s) != 0) {
			differ++;
			printf("differ %s\n", argv[i]);
			if (verbose)
				printf("--- htmltok\n%s--- gumbo\n%s", mine.s, theirs.s);
		}
		free(mine.s);
		free(theirs.s);
		free(html);
	}
	htmltok_free(tok);
	printf("pages %ld differ %ld\n", pages, differ);
	return differ ? 1 : 0;
}
