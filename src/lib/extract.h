/* Links and page facts from HTML and XML documents, for wa-extract
 * (man/wa-formats.5, "Links" and "Pages"; the XML suspects of Mignet,
 * Preda, Abiteboul et al., "Acquisition and Maintenance of XML Data from
 * the Web", sec. 2; the DTD category of Preda, "Data Acquisition for an
 * XML Warehouse", 2000, ch. 5).  The module is extract.c and its parts
 * (extractpriv.h).
 *
 * HTML goes through libxml2's HTML parser in recover mode, XML through its
 * XML parser with no network, no external entities, no DTD loading,
 * libxml2's limits on entity expansion and ours (EXTRACT_ENTITY_BUDGET);
 * both as SAX streams, so no tree is built, and both no deeper than
 * EXTRACT_MAX_DEPTH elements.  Every link is resolved against the page's base and made
 * canonical (url.h); those that are not http or https are dropped, and a
 * page gives each target once, with the "how" of its first occurrence and
 * "+xml" appended when the target is an XML suspect.
 *
 * Use: extract_new once; per page extract_begin, then extract_document
 * (or extract_redirect, extract_robots), then read the info.  Extractors
 * of different threads may parse at once, once the first extract_new has
 * returned (it sets up libxml2 for the process). */
#ifndef WA_EXTRACT_H
#define WA_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>

#include "pagetype.h"
#include "sitemaphints.h"
#include "url.h"

#define EXTRACT_ROOT_MAX 256
/* Elements nested deeper than this stop the parse of an HTML page (XML:
 * libxml2's own limit, the same number): libxml2's HTML parser looks
 * through the whole stack of open elements for each end tag that matches
 * none, so that a deep page of stray end tags would take quadratic time. */
#define EXTRACT_MAX_DEPTH 256
/* Bytes of entity replacement text (the predefined entities aside) that
 * the references of one XML page may look up, in content and attributes
 * alike; past it the parse stops.  libxml2 catches the billion laughs, not
 * a large entity referenced many times. */
#define EXTRACT_ENTITY_BUDGET (4 << 20)

struct extract_info {
	enum page_type type;
	size_t outdeg;		/* distinct links given */
	size_t dropped;		/* links not http(s) or not resolvable */
	/* Of those, the links that were no other scheme's but could not be
	 * made canonical (too long, a bad host...), and the first one's
	 * reason and start: "URL longer than 8192 bytes: /l/aaaa..." */
	size_t refused;
	char refused_first[160];
	char root[EXTRACT_ROOT_MAX];	/* XML root element as written, or "" */
	/* The DTD's system identifier, resolved, else the root's namespace
	 * URI; "" if neither.  Never holds a space, tab or newline. */
	char doctype[URL_BUFSIZE];
	char error[160];	/* why, when type is PAGE_ERROR */
	/* Robots directives (extract_obey_robots_tags): the page asked not to
	 * be indexed, or that none of its links be followed; and the distinct
	 * targets of its document left out for a nofollow, page-wide or
	 * rel="nofollow", that no followed link of the page gave. */
	bool noindex, nofollow;
	size_t nofollowed;
	/* Sitemap hints not given (extract_on_hints): a <lastmod> that is no
	 * W3C datetime or a <changefreq> none of the protocol's, and the
	 * first one's reason: "lastmod is no W3C datetime: 2024-13-01". */
	size_t bad_hints;
	char bad_hint_first[160];
};

/* Called for each distinct link of the page, in document order. */
typedef void extract_link_fn(void *arg, const char *src, const char *dst,
    const char *how);

/* Called for each <url> of a sitemap, and each <sitemap> of a sitemap
 * index, that has a <loc> and a <lastmod> or a <changefreq> (both in the
 * sitemap namespace or none, as the <loc> links): row->url is the loc
 * resolved and canonical, row->sitemap the page.  A bad lastmod or
 * changefreq is left out of the row (counted in the info); a row left
 * with neither is not given. */
typedef void extract_hint_fn(void *arg, const struct hint_row *row);

struct extract;

struct extract *extract_new(extract_link_fn *fn, void *arg);
/* Gives the sitemap hints of the pages parsed from now on to fn(arg, ...);
 * none are by default. */
void extract_on_hints(struct extract *ex, extract_hint_fn *fn, void *arg);
void extract_free(struct extract *ex);

/* Starts the page url (canonical); clears info.  The links given after
 * this belong to it. */
void extract_begin(struct extract *ex, const char *url,
    struct extract_info *info);

/* How a body is parsed: by its media type (lower case, no parameters;
 * NULL or "" if none) and, if that is missing or generic
 * ("application/octet-stream" and the like), by its first bytes and the
 * URL's suffix.  PAGE_OTHER for what is not parsed. */
enum page_type extract_type_of(const char *media_type, const char *url,
    const unsigned char *body, size_t len);

/* Whether a media type says nothing of the content, so that
 * extract_type_of looks at the body. */
bool extract_media_generic(const char *media_type);

/* Parses body as type (PAGE_HTML or PAGE_XML; the others give no
 * links) with the charset of the HTTP header, if any (NULL otherwise).
 * A charset libxml2 does not know is ignored.  In HTML that names UTF-8
 * (the charset, a byte order mark, a meta element in its first 1024 bytes)
 * each invalid UTF-8 sequence is read as U+FFFD, as browsers decode; in
 * HTML that is not UTF-16, NUL bytes and numeric character references as
 * the HTML standard's tokenizer reads them.  Sets info->type,
 * PAGE_ERROR if the XML is not well-formed; the links found before the
 * error are kept. */
void extract_document(struct extract *ex, enum page_type type,
    const char *charset, const unsigned char *body, size_t len);

/* A link found outside a document: the Location of a 3xx response
 * ("redirect"), resolved against the page's URL. */
void extract_link(struct extract *ex, const char *ref, const char *how);

/* The Sitemap lines of a robots.txt body (RFC 9309 sec. 2.2.4):
 * "sitemap" links. */
void extract_robots(struct extract *ex, const unsigned char *body, size_t len);

/* Obeys from now on the robots directives of pages (none are by
 * default): <meta name="robots" content="..."> and rel="nofollow" on a
 * and area elements, in HTML and XHTML, and the X-Robots-Tag fields given
 * to extract_x_robots_tag.  agent (letters, '_' and '-'; NULL for none)
 * is our robots product token: a meta element named so counts too, and
 * X-Robots-Tag directives prefixed "agent:" do, those prefixed by another
 * name do not.  noindex and none set info.noindex; nofollow and none
 * info.nofollow, and then no link of the document is given (a redirect
 * or a robots.txt Sitemap line still is); a link with rel="nofollow" is
 * not given.  Such links are counted in info.nofollowed.  The links of a
 * document are then given when its parse ends. */
void extract_obey_robots_tags(struct extract *ex, const char *agent);

/* The value of an X-Robots-Tag field of the page's HTTP response (value
 * need not end in NUL); after extract_begin and before extract_document.
 * Does nothing unless extract_obey_robots_tags was called. */
void extract_x_robots_tag(struct extract *ex, const char *value, size_t len);

#endif
