/* The parts of the extraction (extract.h) and what they share: the state
 * of a page and of its parse, and what each part offers the others.
 *
 *   extract.c        the driver: pages, links given once, the type of a
 *                    body, the parse of a document, robots.txt
 *   extracthtml.c    HTML elements, and HTML bytes repaired for libxml2
 *   extractxml.c     XML: xml:base, XHTML, feeds, sitemaps, XInclude,
 *                    XLink, schemas, stylesheets, the DTD; the entity budget
 *   extractrobots.c  robots directives, and the links left out for them
 *
 * Only these files include this header. */
#ifndef WA_EXTRACTPRIV_H
#define WA_EXTRACTPRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/parser.h>

#include "extract.h"
#include "htmltok.h"
#include "strmap.h"
#include "url.h"

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
	const char *capture_how;	/* text of the element being read is a link,
					 * or a sitemap hint's (hint_lastmod...) */
	size_t capture_depth;
	char *text;
	size_t text_len, text_cap;
	bool text_too_long;
	xmlParserCtxtPtr ctxt;	/* the XML parser */
	size_t entity_bytes;	/* looked up on this page */
	char *scratch;		/* attribute values made strings */
	struct htmltok *tok;	/* the HTML tokenizer */
	unsigned char *repaired;	/* an HTML page as ex_prepare_html makes it */
	size_t repaired_cap;
	size_t scratch_cap;
	/* Robots directives (extract_obey_robots_tags) */
	bool obey;
	char *agent;		/* our product token, or NULL */
	bool in_document;	/* links now are the document's */
	bool link_nofollow;	/* the link being given has rel="nofollow" */
	size_t pending;		/* seen's first document link, not given yet */
	struct strmap nofollowed;	/* targets of links not followed */
	/* Sitemap hints (extract_on_hints): the <url> or <sitemap> entry
	 * being read, its loc ("" before it) and what it says so far */
	extract_hint_fn *hint_fn;
	void *hint_arg;
	char hint_loc[URL_BUFSIZE];
	struct hint_row hint;
};

/* ---- extract.c ---- */

/* ref resolved against base into out; false if it cannot be (such links
 * are counted by ex_give, not here). */
bool ex_resolve(const char *base, const char *ref, char out[URL_BUFSIZE]);
/* Resolves ref against base and gives it, once per page, with how (and
 * "+xml" for an XML suspect); a link that cannot be resolved is counted
 * in the info.  While a document is parsed under robots directives the
 * link waits for ex_document_end, or is left out for a nofollow. */
void ex_give(struct extract *ex, const char *base, const char *ref,
    const char *how);
/* Stops the parse: the page is of type error for why (prefixed by the
 * line), its links so far are kept. */
void ex_stop_parse(struct extract *ex, xmlParserCtxtPtr ctxt, const char *why);

/* ---- extracthtml.c ---- */

/* Whether s is word, case-insensitively, with white space around it only. */
bool ex_equal_trimmed_ci(const char *s, const char *word);
/* An HTML element (name in lower case) with its attributes as name, value
 * pairs ending in NULL; base is the base for its links (for XHTML,
 * xml:base's).  Gives its links, takes the first base element's href as
 * the page's base, and reads the meta robots directives. */
void ex_html_element(struct extract *ex, const char *name,
    const char *const *atts, const char *base);
/* Whether the HTML tokenizer (htmltok.h) reads the body of a page of that
 * charset (NULL: none named): when the body is UTF-8 (named so, by HTTP
 * or a meta element) or plain ASCII, which every charset but UTF-16 and
 * UTF-32 reads alike.  Other pages are converted by libxml2's HTML parser,
 * which reads them as it reads charsets. */
bool ex_html_tokenizable(const char *charset, const unsigned char *body,
    size_t len);
/* The links of an HTML page that ex_html_tokenizable accepts. */
void ex_html_tokenize(struct extract *ex, const unsigned char *body,
    size_t len);
/* Sets our callbacks of libxml2's HTML parser in sax, a zeroed handler:
 * the parser's own, which would build a tree, stay unset. */
void ex_html_sax(xmlSAXHandler *sax);
/* The body of an HTML page of that charset (NULL: none named) as the
 * HTML standard's tokenizer would read it: with NUL bytes, numeric
 * character references and (in UTF-8) invalid sequences repaired for
 * libxml2, in ex->repaired; body itself if nothing needs a change or the
 * charset is UTF-16 or UTF-32.  *len is updated; the body grows 3 times
 * at most. */
const unsigned char *ex_prepare_html(struct extract *ex, const char *charset,
    const unsigned char *body, size_t *len);

/* ---- extractxml.c ---- */

/* Sets the SAX2 callbacks of libxml2's XML parser in sax. */
void ex_xml_sax(xmlSAXHandler *sax);
/* Drops the xml:base values of the last document. */
void ex_clear_bases(struct extract *ex);

/* ---- extractrobots.c ---- */

/* The directives of a meta robots content (header false) or an
 * X-Robots-Tag value (header true) into ex->info. */
void ex_robots_directives(struct extract *ex, const char *p, size_t len,
    bool header);
/* Whether a meta element's name is "robots" or our product token. */
bool ex_meta_robots_name(const struct extract *ex, const char *name);
/* Whether a rel attribute's space-separated tokens hold "nofollow"; rel
 * may be NULL. */
bool ex_rel_nofollow(const char *rel);
/* A link of the document that is not followed (dst resolved). */
void ex_not_followed(struct extract *ex, const char *dst);
/* The parse of a document begins and ends: under robots directives its
 * links wait for the end, when they are given in the order they came, or
 * counted in info.nofollowed if the page said nofollow. */
void ex_document_begin(struct extract *ex);
void ex_document_end(struct extract *ex);

#endif
