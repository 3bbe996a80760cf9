/* What a URL is to wa: the type of a page (the type column of the pages
 * stream and of the page state, the types file of a graph), the rule that
 * makes a never-fetched URL an XML suspect (Mignet, Preda, Abiteboul et
 * al., "Acquisition and Maintenance of XML Data from the Web", 2000, sec. 2),
 * and the rules that decide what is a page: ranked in the link graph,
 * refreshed by the schedule, discovered from links.  man/wa-formats.5,
 * "Page types", is the user's view of the same rules. */
#ifndef WA_PAGETYPE_H
#define WA_PAGETYPE_H

#include <stdbool.h>

/* The values are stored in graphs (u8 a node): new types go last. */
enum page_type {
	PAGE_UNKNOWN = 0,	/* '-': seen only as a link target */
	PAGE_HTML,
	PAGE_XML,
	PAGE_DTD,
	PAGE_OTHER,		/* fetched, not a document (an image, a script...) */
	PAGE_ERROR,		/* fetched, but its body could not be read */
	PAGE_XML_SUSPECT,	/* not fetched; its URL or its linker says XML */
	PAGE_DEAD,		/* answered 404 or 410 */
	PAGE_ROBOTS,		/* a site's /robots.txt */
	PAGE_SITEMAP,		/* a sitemap or sitemap index (sitemaps.org) */
	PAGE_NOINDEX,		/* a document that asks not to be indexed */
	PAGE_TYPES
};

/* "-", "html", "xml", "dtd", "other", "error", "xml-suspect", "dead",
 * "robots", "sitemap", "noindex". */
extern const char *const page_type_names[PAGE_TYPES];
/* The type so named, or -1. */
int page_type_parse(const char *s);

/* XML documents, the targets of usefulness and the pages weighted by
 * importance in the schedule: xml and dtd. */
bool page_type_xml(enum page_type t);

/* A node of the link graph whose links count: a document or a URL not yet
 * fetched.  Robots files, sitemaps, dead pages, errors and non-documents
 * are known but not ranked: their links are hints for discovery only. */
bool page_type_ranked(enum page_type t);

/* Whether a canonical URL is an XML suspect: its path ends in a suffix of
 * XML (.xml, .rss, .atom, .rdf, .xsd, .dtd...), or, when from_xml (the
 * link was found in an XML page), in an unknown suffix or none. */
bool page_xml_suspect(const char *url, bool from_xml);

/* Whether a canonical URL's path names a file that is no document by its
 * suffix: an image, a style sheet, a script, a font, media, an archive, a
 * binary.  Such URLs are not discovered as pages. */
bool page_not_document(const char *url);

/* Whether a response's media type (lower case, no parameters) is a
 * document's: HTML, XML or a DTD. */
bool page_media_document(const char *media);

/* Whether an HTTP status makes the page dead: 404 Not Found, 410 Gone. */
bool page_status_dead(long status);

#endif
