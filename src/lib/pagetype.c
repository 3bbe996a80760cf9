#include "pagetype.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "urlparts.h"

const char *const page_type_names[PAGE_TYPES] = {
	"-", "html", "xml", "dtd", "other", "error", "xml-suspect", "dead",
	"robots", "sitemap", "noindex",
};

int
page_type_parse(const char *s)
{
	for (int t = 0; t < PAGE_TYPES; t++)
		if (strcmp(s, page_type_names[t]) == 0)
			return t;
	return -1;
}

bool
page_type_xml(enum page_type t)
{
	return t == PAGE_XML || t == PAGE_DTD;
}

bool
page_type_ranked(enum page_type t)
{
	switch (t) {
	case PAGE_UNKNOWN:
	case PAGE_HTML:
	case PAGE_XML:
	case PAGE_DTD:
	case PAGE_XML_SUSPECT:
	case PAGE_NOINDEX:
		return true;
	default:
		return false;
	}
}

/* The three lists in strcmp order, for bsearch.  SVG is XML but an image:
 * a drawing is no document of the warehouse. */
static const char *const xml_suffixes[] = {
	"atom", "dtd", "rdf", "rss", "wml", "xml", "xsd", "xsl", "xslt",
};
static const char *const html_suffixes[] = {
	"asp", "aspx", "cfm", "cgi", "htm", "html", "jsp", "php", "shtml", "xhtml",
};
static const char *const not_document_suffixes[] = {
	"7z", "apk", "avi", "avif", "bin", "bmp", "bz2", "css", "csv", "deb",
	"dmg", "doc", "docx", "eot", "epub", "exe", "flac", "gif", "gz", "ico",
	"iso", "jar", "jpeg", "jpg", "js", "json", "m4a", "mjs", "mkv", "mov",
	"mp3", "mp4", "mpeg", "mpg", "msi", "odp", "ods", "odt", "ogg", "otf",
	"pdf", "pl", "png", "ppt", "pptx", "ps", "py", "rar", "rpm", "rtf",
	"sh", "svg", "swf", "tar", "tgz", "tif", "tiff", "ttf", "txt", "wasm",
	"wav", "webm", "webp", "woff", "woff2", "xls", "xlsx", "xz", "zip", "zst",
};
#define COUNT(a) (sizeof (a) / sizeof *(a))
/* Longer than any suffix of the lists. */
#define SUFFIX_MAX 8

static int
cmp_suffix(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool
in_list(const char *suffix, const char *const *list, size_t n)
{
	return bsearch(suffix, list, n, sizeof *list, cmp_suffix) != NULL;
}

enum suffix_kind { SUFFIX_DIRECTORY, SUFFIX_UNKNOWN, SUFFIX_XML, SUFFIX_HTML,
	SUFFIX_NOT_DOCUMENT };

/* The kind of the suffix of a canonical URL's last path segment: a
 * directory ("/", "/dir/"), none or unknown (".hidden", "name.", "data",
 * "x.frob"), or one of the lists. */
static enum suffix_kind
suffix_kind(const char *url)
{
	const char *p = url_path(url);
	const char *end = p + strcspn(p, "?#"), *seg = end;
	while (seg > p && seg[-1] != '/')
		seg--;
	if (seg == end)
		return SUFFIX_DIRECTORY;
	const char *dot = NULL;
	for (const char *c = seg; c < end; c++)
		if (*c == '.')
			dot = c;
	size_t n = dot ? (size_t)(end - dot - 1) : 0;
	if (!dot || dot == seg || n == 0 || n >= SUFFIX_MAX)
		return SUFFIX_UNKNOWN;
	char suffix[SUFFIX_MAX];
	for (size_t i = 0; i < n; i++)
		suffix[i] = (char)tolower((unsigned char)dot[1 + i]);
	suffix[n] = '\0';
	if (in_list(suffix, xml_suffixes, COUNT(xml_suffixes)))
		return SUFFIX_XML;
	if (in_list(suffix, html_suffixes, COUNT(html_suffixes)))
		return SUFFIX_HTML;
	if (in_list(suffix, not_document_suffixes, COUNT(not_document_suffixes)))
		return SUFFIX_NOT_DOCUMENT;
	return SUFFIX_UNKNOWN;
}

bool
page_xml_suspect(const char *url, bool from_xml)
{
	enum suffix_kind k = suffix_kind(url);
	return k == SUFFIX_XML || (from_xml && k == SUFFIX_UNKNOWN);
}

bool
page_not_document(const char *url)
{
	return suffix_kind(url) == SUFFIX_NOT_DOCUMENT;
}

bool
page_media_document(const char *media)
{
	if (strcmp(media, "text/html") == 0 || strcmp(media, "application/xhtml+xml") == 0 ||
	    strcmp(media, "application/xml-dtd") == 0)
		return true;
	if (strncmp(media, "image/", 6) == 0)
		return false;
	const char *slash = strchr(media, '/');
	size_t n = strlen(media);
	return slash && (strcmp(slash, "/xml") == 0 ||
	    (n > 4 && strcmp(media + n - 4, "+xml") == 0));
}

bool
page_status_dead(long status)
{
	return status == 404 || status == 410;
}
