/* The page types of src/lib/pagetype.c against hand-made cases: the
 * names, the XML-suspect rule on suffixes and on links from XML pages,
 * the suffixes of non-documents, the media types of documents, the
 * statuses of dead pages and which types are ranked. */
#include "pagetype.h"
#include "tap.h"

static void
test_names(void)
{
	static const char *const names[] = { "-", "html", "xml", "dtd", "other", "error",
		"xml-suspect", "dead", "robots", "sitemap", "noindex" };
	ok(PAGE_TYPES == sizeof names / sizeof *names, "%d types", PAGE_TYPES);
	for (int t = 0; t < PAGE_TYPES; t++)
		ok(page_type_parse(names[t]) == t && strcmp(page_type_names[t], names[t]) == 0,
		    "type %d is named %s", t, names[t]);
	ok(page_type_parse("HTML") == -1 && page_type_parse("") == -1 &&
	    page_type_parse("suspect") == -1, "other names are no type");
	/* The values are stored in graphs: those of before stay. */
	ok(PAGE_UNKNOWN == 0 && PAGE_HTML == 1 && PAGE_XML == 2 && PAGE_DTD == 3 &&
	    PAGE_OTHER == 4 && PAGE_ERROR == 5 && PAGE_XML_SUSPECT == 6,
	    "the stored values of the first seven types");
}

static void
test_suspects(void)
{
	static const struct {
		const char *url;
		bool from_xml, want;
	} cases[] = {
		{ "http://e/a.xml", false, true }, { "http://e/a.RSS", false, true },
		{ "http://e/a.rdf?x=1", false, true }, { "http://e/a.atom", false, true },
		{ "http://e/a.wml", false, true }, { "http://e/a.xsd", false, true },
		{ "http://e/a.dtd", false, true }, { "http://e/t.xsl", false, true },
		{ "http://e/t.XSLT", false, true }, { "http://e/a.xml/", false, false },
		{ "http://e/a.html", false, false }, { "http://e/a.foo", false, false },
		{ "http://e/a.foo", true, true }, { "http://e/a.html", true, false },
		{ "http://e/a", true, true }, { "http://e/a", false, false },
		{ "http://e/", true, false }, { "http://e", true, false },
		{ "http://e/.hidden", true, true }, { "http://e/name.", true, true },
		{ "http://e/d/", true, false }, { "http://e/x?a.foo", true, true },
		{ "http://e/x.html?a.xml", false, false }, { "http://e/a.b.c.JPG", true, false },
		{ "http://e/logo.svg", false, false }, { "http://e/logo.svg", true, false },
		{ "http://e/a.verylongsuffix", true, true }, { "http://e/p.php", true, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ok(page_xml_suspect(cases[i].url, cases[i].from_xml) == cases[i].want,
		    "XML suspect %s%s: %s", cases[i].url,
		    cases[i].from_xml ? " on an XML page" : "", cases[i].want ? "yes" : "no");
}

/* Checks that holds(s) for each of yes[] and for none of no[]. */
static void
check_split(bool (*holds)(const char *), const char *const *yes, size_t nyes,
    const char *yes_says, const char *const *no, size_t nno, const char *no_says)
{
	for (size_t i = 0; i < nyes; i++)
		ok(holds(yes[i]), "'%s' %s", yes[i], yes_says);
	for (size_t i = 0; i < nno; i++)
		ok(!holds(no[i]), "'%s' %s", no[i], no_says);
}

static void
test_not_documents(void)
{
	static const char *const yes[] = { "http://e/a.png", "http://e/i/A.JPG",
		"http://e/s.css?v=3", "http://e/app.js", "http://e/f.woff2",
		"http://e/v.mp4", "http://e/src.tar.gz", "http://e/d.pdf",
		"http://e/logo.svg", "http://e/x.zip", "http://e/notes.txt" };
	static const char *const no[] = { "http://e/", "http://e/a.html", "http://e/a",
		"http://e/feed.xml", "http://e/dir/", "http://e/p.php?f=a.png",
		"http://e/a.png/", "http://e/.png", "http://e/x.unknown" };
	check_split(page_not_document, yes, sizeof yes / sizeof *yes, "is no document", no,
	    sizeof no / sizeof *no, "may be a document");
}

static void
test_media(void)
{
	static const char *const yes[] = { "text/html", "application/xhtml+xml",
		"application/xml", "text/xml", "application/atom+xml",
		"application/rss+xml", "application/xml-dtd" };
	static const char *const no[] = { "image/svg+xml", "image/png", "text/css",
		"application/javascript", "application/pdf", "text/plain", "",
		"application/octet-stream", "xml" };
	check_split(page_media_document, yes, sizeof yes / sizeof *yes, "is a document's", no,
	    sizeof no / sizeof *no, "is no document's");
}

static void
test_rules(void)
{
	ok(page_status_dead(404) && page_status_dead(410), "404 and 410 are dead");
	ok(!page_status_dead(200) && !page_status_dead(403) && !page_status_dead(500) &&
	    !page_status_dead(301), "200, 301, 403, 500 are not");
	static const bool ranked[PAGE_TYPES] = {
		[PAGE_UNKNOWN] = true, [PAGE_HTML] = true, [PAGE_XML] = true,
		[PAGE_DTD] = true, [PAGE_XML_SUSPECT] = true, [PAGE_NOINDEX] = true,
	};
	for (int t = 0; t < PAGE_TYPES; t++)
		ok(page_type_ranked(t) == ranked[t], "%s is %sranked", page_type_names[t],
		    ranked[t] ? "" : "not ");
	for (int t = 0; t < PAGE_TYPES; t++)
		ok(page_type_xml(t) == (t == PAGE_XML || t == PAGE_DTD), "%s is %san XML document",
		    page_type_names[t], t == PAGE_XML || t == PAGE_DTD ? "" : "not ");
}

int
main(void)
{
	test_names();
	test_suspects();
	test_not_documents();
	test_media();
	test_rules();
	return done_testing();
}
