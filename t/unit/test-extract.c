/* Link extraction from HTML and XML (extract.h) and HTTP responses as
 * WARC records hold them (httpresp.h).  Every expected link is written out
 * by hand from the documents below, the link forms and "how" tokens as
 * man/wa-formats.5 "Links" fixes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "extract.h"
#include "httpresp.h"
#include "tap.h"
#include "url.h"

static char got[65536];
static size_t got_len;

static void
collect(void *arg, const char *src, const char *dst, const char *how)
{
	const char *want_src = arg;
	if (strcmp(src, want_src) != 0)
		diag("link from %s, expected %s", src, want_src);
	int n = snprintf(got + got_len, sizeof got - got_len, "%s %s\n", dst, how);
	if (n > 0 && (size_t)n < sizeof got - got_len)
		got_len += (size_t)n;
}

/* Extracts body (NUL-terminated) at url as the media type says; returns
 * its links, one "dst how" line each. */
static const char *
run(const char *url, const char *media, const char *charset, const char *body,
    size_t len, struct extract_info *info)
{
	struct extract *ex = extract_new(collect, (void *)url);
	got_len = 0;
	got[0] = '\0';
	extract_begin(ex, url, info);
	if (!len)
		len = strlen(body);
	enum page_type t = extract_type_of(media, url,
	    (const unsigned char *)body, len);
	extract_document(ex, t, charset, (const unsigned char *)body, len);
	extract_free(ex);
	return got;
}

static const char *
links(const char *url, const char *media, const char *body)
{
	struct extract_info info;
	return run(url, media, NULL, body, 0, &info);
}

static void
test_html(void)
{
	struct extract_info info;
	const char *html =
	    "<!DOCTYPE html><html><head><title>t</title>\n"
	    "<link rel=stylesheet href=\"/style.css\">\n"
	    "<link rel=alternate type=application/rss+xml href=\"feed.rss\">\n"
	    "<meta http-equiv=\"Refresh\" content=\"5; URL='next.html'\">\n"
	    "</head><body>\n"
	    "<a href=\"b.html#frag\">b</a> <a href=\"B.html\">B</a>\n"
	    "<A HREF=\"../up/c.html?x=1&amp;y=2\">c</A>\n"
	    "<map><area href=\"http://Other.Example:80/area\"></map>\n"
	    "<iframe src=\"//cdn.example.com/if\"></iframe>\n"
	    /* Ignored after the body's content, as the HTML standard says
	     * (and Gumbo does); libxml2's HTML 4 parser gave the frame. */
	    "<frameset><frame src=\"fr.html\"></frameset>\n"
	    "<form action=\"/search\"><input name=q></form>\n"
	    "<form action=\"/get2\" method=\" GET \"></form>\n"
	    "<form action=\"/post\" method=\"post\"></form>\n"
	    "<a href=\"javascript:alert(1)\">j</a><a href=\"mailto:a@b.c\">m</a>\n"
	    "<a href=\"data:text/html,hi\">d</a><a href=\"ftp://x.example/\">f</a>\n"
	    "<a href=\"b.html\">again</a><iframe src=\"b.html\"></iframe>\n"
	    "<a href=\"doc.XML\">x</a><a href=\"schema.xsd?v=1\">s</a>\n"
	    "<a href=\"unknown.foo\">u</a><a>no href</a>\n"
	    "<a href=\"  spaced.html\t\n\">s</a>\n"
	    "</body></html>\n";
	is_str(run("http://example.com/dir/page.html", "text/html", NULL, html, 0,
	    &info),
	    "http://example.com/style.css link\n"
	    "http://example.com/dir/feed.rss link+xml\n"
	    "http://example.com/dir/next.html refresh\n"
	    "http://example.com/dir/b.html a\n"
	    "http://example.com/dir/B.html a\n"
	    "http://example.com/up/c.html?x=1&y=2 a\n"
	    "http://other.example/area area\n"
	    "http://cdn.example.com/if iframe\n"
	    "http://example.com/search form\n"
	    "http://example.com/get2 form\n"
	    "http://example.com/dir/doc.XML a+xml\n"
	    "http://example.com/dir/schema.xsd?v=1 a+xml\n"
	    "http://example.com/dir/unknown.foo a\n"
	    "http://example.com/dir/spaced.html a\n",
	    "HTML: every link form, in document order, resolved, deduplicated, "
	    "+xml by suffix, POST forms and other schemes dropped");
	ok(info.type == PAGE_HTML && info.outdeg == 14 && info.dropped == 4,
	    "HTML: type html, out-degree 14, 4 dropped (got %s, %zu, %zu)",
	    page_type_names[info.type], info.outdeg, info.dropped);
	is_str(info.root, "", "HTML: no root element column");

	is_str(links("http://example.com/a/b/c.html", "text/html",
	    "<html><head><base href=\"http://base.example/x/y/\">"
	    "<base href=\"http://ignored.example/\"></head>"
	    "<body><a href=\"z.html\">z</a><a href=\"/abs\">a</a>"
	    "<a href=\"\">self</a></body></html>"),
	    "http://base.example/x/y/z.html a\n"
	    "http://base.example/abs a\n"
	    "http://base.example/x/y/ a\n",
	    "HTML: the first base href sets the base; an empty href is the base");
	is_str(links("http://example.com/a/", "text/html",
	    "<base href=\"../sub/\"><a href=\"p\">p</a>"),
	    "http://example.com/sub/p a\n", "HTML: a relative base resolves against the page");

	is_str(links("http://example.com/", "text/html",
	    "<meta http-equiv=refresh content=\"0;url=/go\">"
	    "<meta http-equiv=refresh content=\"3\">"
	    "<meta http-equiv=refresh content=\"1, http://abs.example/r\">"
	    "<meta name=refresh content=\"0;url=/not\">"),
	    "http://example.com/go refresh\nhttp://abs.example/r refresh\n",
	    "HTML: meta refresh forms; no URL or no http-equiv gives none");

	is_str(run("http://example.com/", "text/html", NULL,
	    "<html><body><div><a href=/one>1<table><tr><td><a href='/two'>"
	    "<p><a href=/three <b>bad</i></html><a href=/four>", 0, &info),
	    "http://example.com/one a\nhttp://example.com/two a\n"
	    "http://example.com/three a\nhttp://example.com/four a\n",
	    "HTML: broken markup is recovered");
	ok(info.type == PAGE_HTML, "HTML: broken markup is still html");

	is_str(run("http://example.com/", "text/html", NULL, "", 0, &info), "",
	    "HTML: an empty body has no links");
	ok(info.type == PAGE_HTML && info.outdeg == 0, "HTML: an empty body is html");
}

static void
test_charsets(void)
{
	struct extract_info info;
	/* "café" in ISO-8859-1 is 63 61 66 e9. */
	const char latin1[] = "<html><head><meta charset=\"iso-8859-1\"></head>"
	    "<body><a href=\"caf\xe9.html\">x</a></body></html>";
	is_str(links("http://example.com/", "text/html", latin1),
	    "http://example.com/caf%C3%A9.html a\n",
	    "charset: an ISO-8859-1 meta charset turns é into UTF-8 %%C3%%A9");
	const char latin1_old[] = "<html><head><meta http-equiv=\"Content-Type\" "
	    "content=\"text/html; charset=ISO-8859-1\"></head>"
	    "<body><a href=\"caf\xe9.html\">x</a></body></html>";
	is_str(links("http://example.com/", "text/html", latin1_old),
	    "http://example.com/caf%C3%A9.html a\n",
	    "charset: the http-equiv Content-Type form too");
	const char latin1_nometa[] = "<a href=\"caf\xe9.html\">x</a>";
	is_str(run("http://example.com/", "text/html", "ISO-8859-1", latin1_nometa,
	    0, &info), "http://example.com/caf%C3%A9.html a\n",
	    "charset: the HTTP header's charset");
	const char utf8_said_latin1[] = "<meta charset=\"iso-8859-1\">"
	    "<a href=\"caf\xc3\xa9.html\">x</a>";
	is_str(run("http://example.com/", "text/html", "utf-8", utf8_said_latin1,
	    0, &info), "http://example.com/caf%C3%A9.html a\n",
	    "charset: the HTTP header's charset wins over meta charset");
	const char bom[] = "\xef\xbb\xbf<meta charset=\"iso-8859-1\">"
	    "<a href=\"caf\xc3\xa9.html\">x</a>";
	is_str(links("http://example.com/", "text/html", bom),
	    "http://example.com/caf%C3%A9.html a\n",
	    "charset: a UTF-8 byte order mark wins over meta charset");
	/* "<a href="é">" in UTF-16LE with its BOM. */
	const char utf16[] = "\xff\xfe<\0a\0 \0h\0r\0e\0f\0=\0\"\0\xe9\0\"\0>\0";
	is_str(run("http://example.com/", "text/html", NULL, utf16,
	    sizeof utf16 - 1, &info), "http://example.com/%C3%A9 a\n",
	    "charset: a UTF-16LE byte order mark");
	const char xml_latin1[] = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
	    "<r xmlns:xlink=\"http://www.w3.org/1999/xlink\" xlink:href=\"\xe9.xml\"/>";
	is_str(links("http://example.com/", "application/xml", xml_latin1),
	    "http://example.com/%C3%A9.xml xlink+xml\n",
	    "charset: the XML declaration's encoding");
	is_str(run("http://example.com/", "text/html", "no-such-charset", latin1,
	    0, &info), "http://example.com/caf%C3%A9.html a\n",
	    "charset: an unknown HTTP charset is ignored, meta charset used");
	ok(info.type == PAGE_HTML, "charset: ... and the page is html");
}

/* An XML document: its links, one "dst how" line each, and what
 * extract_info says of it. */
struct xml_case {
	const char *what, *url, *media, *body;
	const char *links, *about_links;
	enum page_type type;
	size_t outdeg;
	const char *root, *doctype, *about_doctype;
};

static const struct xml_case xml_cases[] = {
	{ "RSS", "http://example.com/feeds/rss.xml", "application/rss+xml",
	  "<?xml version=\"1.0\"?>\n"
	  "<?xml-stylesheet type=\"text/xsl\" href=\"/s.xsl?a=1&amp;b=2\"?>\n"
	  "<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\">"
	  "<channel><title>T</title><link>http://example.com/</link>"
	  "<atom:link rel=\"self\" href=\"rss.xml\"/>"
	  "<item><title>i</title><link>\n  /posts/1  \n</link>"
	  "<enclosure url=\"/media/1.mp3\" length=\"1\" type=\"audio/mpeg\"/>"
	  "<description>&lt;a href=\"/not-a-link\"&gt;</description></item>"
	  "<item><link><![CDATA[/posts/2?a=1&b=2]]></link>"
	  "<guid>http://example.com/guid</guid></item>"
	  "<item><link>/posts/item.data</link></item>"
	  "</channel></rss>",
	  "http://example.com/s.xsl?a=1&b=2 stylesheet+xml\n"
	  "http://example.com/ rss\n"
	  "http://example.com/feeds/rss.xml atom+xml\n"
	  "http://example.com/posts/1 rss+xml\n"
	  "http://example.com/media/1.mp3 enclosure\n"
	  "http://example.com/posts/2?a=1&b=2 rss+xml\n"
	  "http://example.com/posts/item.data rss+xml\n",
	  "stylesheet, channel and item links, CDATA, atom:link, "
	  "enclosure; an unknown suffix or none on an XML page is a suspect",
	  PAGE_XML, 7, "rss", "", "no DTD, no namespace" },
	{ "Atom", "http://example.com/atom", "application/atom+xml",
	  "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"http://example.com/blog/\">"
	  "<link href=\"/\"/><entry><link href=\"e1\"/>"
	  "<link rel=\"enclosure\" href=\"e1.ogg\"/>"
	  "<link rel=\"alternate\" href=\"e1\"/></entry>"
	  "<entry xml:base=\"sub/\"><link href=\"e2\"/></entry>"
	  "<entry><link href=\"e3\"/></entry></feed>",
	  "http://example.com/ atom\n"
	  "http://example.com/blog/e1 atom+xml\n"
	  "http://example.com/blog/e1.ogg enclosure\n"
	  "http://example.com/blog/sub/e2 atom+xml\n"
	  "http://example.com/blog/e3 atom+xml\n",
	  "link href, rel enclosure, xml:base for its subtree only",
	  PAGE_XML, 5, "feed", "http://www.w3.org/2005/Atom", "namespace as doctype" },
	{ "sitemap", "http://example.com/sitemap.xml", "text/xml",
	  "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
	  "<url><loc>http://example.com/a</loc><lastmod>2020</lastmod></url>"
	  "<url><loc>http://example.com/b.html</loc></url></urlset>",
	  "http://example.com/a sitemap+xml\nhttp://example.com/b.html sitemap\n",
	  "loc",
	  PAGE_SITEMAP, 2, "urlset", "http://www.sitemaps.org/schemas/sitemap/0.9", "namespace as doctype" },
	{ "sitemap index", "http://example.com/sitemap_index.xml", "application/xml",
	  "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
	  "<sitemap><loc>http://example.com/s1.xml</loc></sitemap>"
	  "<sitemap><loc>/s2.xml.gz</loc></sitemap></sitemapindex>",
	  "http://example.com/s1.xml sitemap+xml\nhttp://example.com/s2.xml.gz sitemap\n",
	  "loc (.gz is a known suffix)",
	  PAGE_SITEMAP, 2, "sitemapindex", "http://www.sitemaps.org/schemas/sitemap/0.9",
	  "namespace as doctype" },
	{ "XML", "http://example.com/x/doc.xml", "application/xml",
	  "<?xml version=\"1.0\"?>\n"
	  "<!DOCTYPE book SYSTEM \"../dtd/book.dtd\" [ <!ENTITY e \"http://example.com/ent\"> ]>\n"
	  "<book xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n"
	  " xmlns:xi=\"http://www.w3.org/2001/XInclude\"\n"
	  " xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
	  " xsi:schemaLocation=\"urn:a a.xsd\n urn:b  http://example.com/b.xsd\">"
	  "<chapter xlink:type=\"simple\" xlink:href=\"ch1.xml\"/>"
	  "<ref xlink:href=\"&e;\"/><ref xlink:href=\"q?a=1&amp;b=&#233;&#x26;c\"/>"
	  "<xi:include href=\"part.xml\" parse=\"xml\"/>"
	  "<data xsi:noNamespaceSchemaLocation=\" nons.xsd \"/>"
	  "<chapter xml:base=\"http://other.example/d/\" xlink:href=\"ch2\"/>"
	  "<chapter xlink:href=\"ch3.weird\"/>"
	  "<link>/rss-only</link><loc>/sitemap-only</loc>"
	  "<enclosure url=\"/rss-enclosure-only\"/></book>",
	  "http://example.com/dtd/book.dtd doctype+xml\n"
	  "http://example.com/x/a.xsd schema+xml\n"
	  "http://example.com/b.xsd schema+xml\n"
	  "http://example.com/x/ch1.xml xlink+xml\n"
	  "http://example.com/ent xlink+xml\n"
	  "http://example.com/x/q?a=1&b=%C3%A9&c xlink+xml\n"
	  "http://example.com/x/part.xml xinclude+xml\n"
	  "http://example.com/x/nons.xsd schema+xml\n"
	  "http://other.example/d/ch2 xlink+xml\n"
	  "http://example.com/x/ch3.weird xlink+xml\n",
	  "DOCTYPE, schemaLocation pairs, xlink (with an internal "
	  "entity), XInclude, noNamespaceSchemaLocation, xml:base; RSS and "
	  "sitemap forms only in their documents",
	  PAGE_XML, 10, "book", "http://example.com/dtd/book.dtd", "DTD as doctype" },
	{ "XHTML", "http://example.com/x.xhtml", "application/xhtml+xml",
	  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	  "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" "
	  "\"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n"
	  "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>"
	  "<link rel=\"stylesheet\" href=\"s.css\"/>"
	  "<base href=\"http://example.com/b/\"/></head><body>"
	  "<p><a id=\"1\" class=\"c\" title=\"t\" lang=\"en\" dir=\"ltr\" rel=\"x\" "
	  "rev=\"y\" type=\"text/html\" name=\"n\" tabindex=\"1\" accesskey=\"k\" "
	  "shape=\"rect\" coords=\"0\" charset=\"utf-8\" hreflang=\"en\" "
	  "style=\"s\" onclick=\"f()\" href=\"p.html\">p</a><img src=\"i.png\"/></p>"
	  "<form action=\"f\" method=\"post\"/><form action=\"g\"/>"
	  "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">"
	  "<svg:a xlink:href=\"svg-target.html\"/></svg:svg>"
	  "</body></html>",
	  "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd doctype+xml\n"
	  "http://example.com/s.css link\n"
	  "http://example.com/b/p.html a\n"
	  "http://example.com/b/g form+xml\n"
	  "http://example.com/b/svg-target.html xlink\n",
	  "the HTML forms in the XHTML namespace (an href after 17 other attributes), base, DOCTYPE, xlink in SVG",
	  PAGE_XML, 5, "html", "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd", "doctype" },
	{ "RSS 1.0", "http://example.com/rdf", "application/rdf+xml",
	  "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
	  "xmlns=\"http://purl.org/rss/1.0/\"><channel><link>http://example.com/c</link>"
	  "</channel></rdf:RDF>",
	  "http://example.com/c rss+xml\n", "link",
	  PAGE_XML, 1, "rdf:RDF", "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "the root's namespace" },
};

static void
test_xml(void)
{
	for (size_t i = 0; i < sizeof xml_cases / sizeof *xml_cases; i++) {
		const struct xml_case *c = &xml_cases[i];
		struct extract_info info;
		is_str(run(c->url, c->media, NULL, c->body, 0, &info), c->links, "%s: %s",
		    c->what, c->about_links);
		ok(info.type == c->type && info.outdeg == c->outdeg, "%s: type %s, out-degree %zu",
		    c->what, page_type_names[c->type], c->outdeg);
		is_str(info.root, c->root, "%s: root element, as written", c->what);
		is_str(info.doctype, c->doctype, "%s: %s", c->what, c->about_doctype);
	}
}

static void
test_xml_errors(void)
{
	struct extract_info info;
	is_str(run("http://example.com/bad.xml", "text/xml", NULL,
	    "<r xmlns:xlink=\"http://www.w3.org/1999/xlink\">"
	    "<a xlink:href=\"before\"/><b></c><a xlink:href=\"after\"/></r>", 0, &info),
	    "http://example.com/before xlink+xml\n",
	    "broken XML: the links before the error");
	ok(info.type == PAGE_ERROR, "broken XML: type error");
	ok(strstr(info.error, "line 1") != NULL, "broken XML: the reason has the line (%s)",
	    info.error);

	/* Billion laughs: 10^9 "lol"s if expanded. */
	char laughs[4096];
	size_t n = (size_t)snprintf(laughs, sizeof laughs,
	    "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n"
	    " <!ENTITY lol \"lol\">\n");
	for (int i = 1; i <= 9; i++) {
		n += (size_t)snprintf(laughs + n, sizeof laughs - n,
		    " <!ENTITY lol%d \"", i);
		for (int j = 0; j < 10; j++)
			n += (size_t)snprintf(laughs + n, sizeof laughs - n,
			    i == 1 ? "&lol;" : "&lol%d;", i - 1);
		n += (size_t)snprintf(laughs + n, sizeof laughs - n, "\">\n");
	}
	snprintf(laughs + n, sizeof laughs - n,
	    "]>\n<lolz xmlns:xlink=\"http://www.w3.org/1999/xlink\">"
	    "<a xlink:href=\"/x?&lol9;\"/>&lol9;</lolz>\n");
	clock_t t0 = clock();
	run("http://example.com/lol.xml", "text/xml", NULL, laughs, 0, &info);
	double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(info.type == PAGE_ERROR && got_len < 1000,
	    "billion laughs in an attribute: error, nothing expanded (%s)", info.error);
	diag("billion laughs took %.3f s of CPU", cpu);
	/* In content only: references are reported, not expanded, so the
	 * document is read to its end, each entity parsed once. */
	char *lol = strstr(laughs, "<a xlink");
	memmove(lol, lol + 27, strlen(lol + 27) + 1);
	is_str(run("http://example.com/lol.xml", "text/xml", NULL, laughs, 0, &info),
	    "", "billion laughs in content: no links");
	ok(info.type == PAGE_XML || info.type == PAGE_ERROR,
	    "billion laughs in content: ends (%s %s)", page_type_names[info.type],
	    info.error);

	/* An external entity pointing at a file must not be read. */
	char path[] = "/tmp/test-extract.XXXXXX";
	int fd = mkstemp(path);
	const char secret[] = "<leak xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
	    "xlink:href=\"http://leak.example/\"/>";
	ok(fd >= 0 && write(fd, secret, sizeof secret - 1) == (ssize_t)sizeof secret - 1,
	    "external entity: a file to point at");
	char doc[1024];
	snprintf(doc, sizeof doc, "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE r [ <!ENTITY ext SYSTEM \"file://%s\"> ]>\n"
	    "<r xmlns:xlink=\"http://www.w3.org/1999/xlink\">&ext;"
	    "<a xlink:href=\"/after\"/></r>", path);
	is_str(run("http://example.com/ext.xml", "text/xml", NULL, doc, 0, &info),
	    "http://example.com/after xlink+xml\n",
	    "external entity: not loaded, the rest of the document read");
	snprintf(doc, sizeof doc, "<?xml version=\"1.0\"?>\n"
	    "<!DOCTYPE r SYSTEM \"file://%s\">\n<r/>", path);
	is_str(run("http://example.com/ext.xml", "text/xml", NULL, doc, 0, &info),
	    "", "external DTD: not loaded, and a file: system id is no link");
	close(fd);
	unlink(path);
}

static void
test_types(void)
{
	static const struct {
		const char *media, *url, *body;
		enum page_type want;
	} cases[] = {
		{ "text/html", "http://e/x.xml", "<?xml version='1.0'?><r/>", PAGE_HTML },
		{ "application/xhtml+xml", "http://e/", "<html/>", PAGE_XML },
		{ "text/xml", "http://e/", "", PAGE_XML },
		{ "application/atom+xml", "http://e/", "", PAGE_XML },
		{ "image/svg+xml", "http://e/", "", PAGE_OTHER },
		{ "application/xml-dtd", "http://e/", "", PAGE_DTD },
		{ "image/png", "http://e/x.html", "<html>", PAGE_OTHER },
		{ "text/plain", "http://e/", "<html>", PAGE_OTHER },
		{ NULL, "http://e/", "  <!DOCTYPE HTML>", PAGE_HTML },
		{ "", "http://e/", "<!-- c --><HTML>", PAGE_HTML },
		{ "application/octet-stream", "http://e/", "\xef\xbb\xbf<?xml version=\"1.0\"?><r/>", PAGE_XML },
		{ "application/octet-stream", "http://e/", "<?xml version=\"1.0\"?>\n<!ELEMENT a (b)>", PAGE_DTD },
		{ "application/octet-stream", "http://e/x.dtd", "%ents; <!ELEMENT a ANY>", PAGE_DTD },
		{ "application/octet-stream", "http://e/", "<rss version=\"2.0\">", PAGE_XML },
		{ "application/octet-stream", "http://e/", "<p>para", PAGE_HTML },
		{ "application/octet-stream", "http://e/", "\x89PNG", PAGE_OTHER },
		{ "application/octet-stream", "http://e/", "plain text", PAGE_OTHER },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		enum page_type t = extract_type_of(cases[i].media, cases[i].url,
		    (const unsigned char *)cases[i].body, strlen(cases[i].body));
		ok(t == cases[i].want, "type of %s %s \"%.20s\": %s (got %s)",
		    cases[i].media ? cases[i].media : "(none)", cases[i].url,
		    cases[i].body, page_type_names[cases[i].want],
		    page_type_names[t]);
	}
}

static void
test_robots_redirect(void)
{
	struct extract_info info;
	struct extract *ex = extract_new(collect, "http://example.com/robots.txt");
	got_len = 0;
	extract_begin(ex, "http://example.com/robots.txt", &info);
	const char robots[] = "User-agent: *\nDisallow: /private\n"
	    "Sitemap: http://example.com/sitemap.xml\r\n"
	    "  sitemap :/relative-map.xml # comment\n"
	    "SITEMAP:http://other.example/m\n"
	    "Sitemaps: http://no.example/\nSitemap: http://example.com/sitemap.xml\n"
	    "Sitemap: mailto:x@y";
	extract_robots(ex, (const unsigned char *)robots, sizeof robots - 1);
	is_str(got, "http://example.com/sitemap.xml sitemap+xml\n"
	    "http://example.com/relative-map.xml sitemap+xml\n"
	    "http://other.example/m sitemap\n",
	    "robots.txt: Sitemap lines, case-insensitive, relative resolved, once");
	ok(info.outdeg == 3 && info.type == PAGE_ROBOTS, "robots.txt: out-degree 3, type robots");

	got_len = 0;
	got[0] = '\0';
	extract_begin(ex, "http://example.com/robots.txt", &info);
	extract_link(ex, "/new/place.html", "redirect");
	is_str(got, "http://example.com/new/place.html redirect\n",
	    "redirect: Location resolved against the page");
	extract_free(ex);
}

static void
test_dedup_many(void)
{
	/* Enough distinct links to grow the table several times. */
	size_t cap = 3000 * 40 + 100;
	char *html = malloc(cap);
	size_t n = 0;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++)
			n += (size_t)snprintf(html + n, cap - n, "<a href=/p%d>x</a>", i);
	struct extract_info info;
	struct extract *ex = extract_new(collect, "http://example.com/");
	extract_begin(ex, "http://example.com/", &info);
	got_len = 0;
	extract_document(ex, PAGE_HTML, NULL, (const unsigned char *)html, n);
	ok(info.outdeg == 3000, "dedup: 6000 links, 3000 distinct (got %zu)", info.outdeg);
	/* A second page starts afresh. */
	extract_begin(ex, "http://example.com/", &info);
	got_len = 0;
	extract_document(ex, PAGE_HTML, NULL, (const unsigned char *)"<a href=/p1>", 12);
	is_str(got, "http://example.com/p1 a\n", "dedup: per page only");
	extract_free(ex);
	free(html);
}

static bool
decode(const char *block, size_t len, const char **body, size_t *body_len,
    struct http_response *r, const char **why)
{
	static unsigned char *buf;
	static size_t cap;
	if (!http_parse_response((const unsigned char *)block, len, r, why))
		return false;
	if (!http_decode_body(r, 1 << 20, &buf, &cap, body_len, why))
		return false;
	*body = (const char *)buf;
	return true;
}

static void
test_http(void)
{
	struct http_response r;
	const char *why = "", *body;
	size_t len;
	const char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: Text/HTML ; Charset=\"ISO-8859-1\"\r\n"
	    "Server: x\r\n\r\n<html>";
	ok(decode(plain, sizeof plain - 1, &body, &len, &r, &why) && r.status == 200 &&
	    len == 6 && memcmp(body, "<html>", 6) == 0, "HTTP: status and body");
	is_str(r.media_type, "text/html", "HTTP: media type in lower case");
	is_str(r.charset, "ISO-8859-1", "HTTP: quoted charset");

	const char redirect[] = "HTTP/1.0 301 Moved\nLocation:  /there \nContent-Length: 0\n\n";
	ok(decode(redirect, sizeof redirect - 1, &body, &len, &r, &why) &&
	    r.status == 301 && len == 0, "HTTP: LF line ends, empty body");
	is_str(r.location, "/there", "HTTP: Location trimmed");

	/* gzip of "<a href=/z>" made here with zlib. */
	unsigned char gz[256];
	z_stream z;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)"<a href=/z>";
	z.avail_in = 11;
	z.next_out = gz;
	z.avail_out = sizeof gz;
	deflate(&z, Z_FINISH);
	size_t gz_len = sizeof gz - z.avail_out;
	deflateEnd(&z);
	char block[1024];
	int h = snprintf(block, sizeof block,
	    "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n");
	memcpy(block + h, gz, gz_len);
	ok(decode(block, (size_t)h + gz_len, &body, &len, &r, &why) && len == 11 &&
	    memcmp(body, "<a href=/z>", 11) == 0, "HTTP: gzip Content-Encoding");
	bool done = decode(block, (size_t)h + gz_len - 5, &body, &len, &r, &why);
	ok(!done && strcmp(why, "compressed body truncated") == 0,
	    "HTTP: a truncated gzip body is an error (%s)", why);

	/* gzip bomb: 4 MB of zeros, over the 1 MB limit. */
	size_t big = 4 << 20;
	unsigned char *zeros = calloc(1, big), *bomb = malloc(big);
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = zeros;
	z.avail_in = (uInt)big;
	z.next_out = bomb;
	z.avail_out = (uInt)big;
	deflate(&z, Z_FINISH);
	size_t bomb_len = big - z.avail_out;
	deflateEnd(&z);
	char *bblock = malloc(bomb_len + 100);
	h = snprintf(bblock, 100, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n");
	memcpy(bblock + h, bomb, bomb_len);
	done = decode(bblock, (size_t)h + bomb_len, &body, &len, &r, &why);
	ok(!done && strcmp(why, "decoded body larger than the limit") == 0,
	    "HTTP: a gzip bomb stops at the limit (%s)", why);
	free(zeros);
	free(bomb);
	free(bblock);

	/* deflate as zlib and as raw deflate. */
	for (int raw = 0; raw < 2; raw++) {
		memset(&z, 0, sizeof z);
		deflateInit2(&z, 9, Z_DEFLATED, raw ? -15 : 15, 8, Z_DEFAULT_STRATEGY);
		z.next_in = (Bytef *)"deflated";
		z.avail_in = 8;
		z.next_out = gz;
		z.avail_out = sizeof gz;
		deflate(&z, Z_FINISH);
		gz_len = sizeof gz - z.avail_out;
		deflateEnd(&z);
		h = snprintf(block, sizeof block,
		    "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n");
		memcpy(block + h, gz, gz_len);
		ok(decode(block, (size_t)h + gz_len, &body, &len, &r, &why) && len == 8 &&
		    memcmp(body, "deflated", 8) == 0, "HTTP: deflate, %s",
		    raw ? "raw" : "zlib");
	}
	const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n";
	ok(decode(chunked, sizeof chunked - 1, &body, &len, &r, &why) && len == 12 &&
	    memcmp(body, "hello, world", 12) == 0, "HTTP: chunked framing kept by a writer");
	/* Made by libbrotlienc (quality 11) from the text below. */
	const char br[] = "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n"
	    "\x1b\x2a\x00\xf8\xc5\x6d\x6c\x5d\xf9\xde\xa3\xad\xa0\x10\xa2\x94\xa4"
	    "\x14\x79\xd2\x81\x12\x70\x22\x14\x2a\xbb\xa7\x3d\x5f\x7e\x9a\x00";
	const char br_text[] = "a body compressed by brotli, brotli, brotli";
	ok(decode(br, sizeof br - 1, &body, &len, &r, &why) && len == sizeof br_text - 1 &&
	    memcmp(body, br_text, len) == 0, "HTTP: br");
	ok(!decode(br, sizeof br - 6, &body, &len, &r, &why) &&
	    strcmp(why, "compressed body truncated") == 0, "HTTP: br cut short is refused");
	const char compress[] = "HTTP/1.1 200 OK\r\nContent-Encoding: compress\r\n\r\nxx";
	ok(!decode(compress, sizeof compress - 1, &body, &len, &r, &why) &&
	    strcmp(why, "unsupported Content-Encoding") == 0,
	    "HTTP: compress is an unsupported coding");
	const char *bad[] = { "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nX: y", "HTTP/1.1 099 x\r\n\r\n" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		done = http_parse_response((const unsigned char *)bad[i],
		    strlen(bad[i]), &r, &why);
		ok(!done, "HTTP: refused: %s", done ? "(accepted)" : why);
	}
}

/* Extracts an HTML (or with xml, XHTML) body obeying robots directives
 * for agent, after the X-Robots-Tag values of headers (NULL-ended). */
static const char *
run_robots(const char *agent, const char *const *headers, const char *body,
    bool xml, struct extract_info *info)
{
	const char *url = "http://example.com/p";
	struct extract *ex = extract_new(collect, (void *)url);
	extract_obey_robots_tags(ex, agent);
	got_len = 0;
	got[0] = '\0';
	extract_begin(ex, url, info);
	for (; headers && *headers; headers++)
		extract_x_robots_tag(ex, *headers, strlen(*headers));
	extract_document(ex, xml ? PAGE_XML : PAGE_HTML, NULL,
	    (const unsigned char *)body, strlen(body));
	extract_free(ex);
	return got;
}

static void
test_robots_tags(void)
{
	struct extract_info info;
	const char *links3 =
	    "<a href=\"/1\">1</a><a href=\"/2\">2</a><area href=\"/3\">\n";
	char body[1024];

	snprintf(body, sizeof body, "<html><head><meta name=\"robots\" "
	    "content=\"nofollow\"></head><body>%s</body></html>", links3);
	is_str(run_robots(NULL, NULL, body, false, &info), "",
	    "meta robots nofollow: no link given");
	ok(!info.noindex && info.nofollow && info.nofollowed == 3 &&
	    info.outdeg == 0, "nofollow: 3 not followed, out-degree 0 "
	    "(got %zu, %zu)", info.nofollowed, info.outdeg);

	snprintf(body, sizeof body, "<body>%s<meta name=\"ROBOTS\" "
	    "content=\" index , NoFollow \"></body>", links3);
	is_str(run_robots(NULL, NULL, body, false, &info), "",
	    "meta robots after the links, in any case, still nofollow");
	ok(info.nofollowed == 3, "and the 3 counted (got %zu)", info.nofollowed);

	snprintf(body, sizeof body, "<meta name=robots content=noindex>%s", links3);
	is_str(run_robots(NULL, NULL, body, false, &info),
	    "http://example.com/1 a\nhttp://example.com/2 a\n"
	    "http://example.com/3 area\n", "meta robots noindex: links kept");
	ok(info.noindex && !info.nofollow && info.outdeg == 3 &&
	    info.type == PAGE_HTML, "noindex set, type still html");

	snprintf(body, sizeof body, "<meta name=robots content=\"none\">%s", links3);
	is_str(run_robots(NULL, NULL, body, false, &info), "", "none: no links");
	ok(info.noindex && info.nofollow, "none: noindex and nofollow");

	snprintf(body, sizeof body, "<meta name=robots content=\"all, index follow, "
	    "max-snippet:-1, noarchive\">%s", links3);
	run_robots(NULL, NULL, body, false, &info);
	ok(!info.noindex && !info.nofollow && info.outdeg == 3,
	    "all, index, follow and others change nothing");

	is_str(run_robots(NULL, NULL,
	    "<a href=/a rel=nofollow>a</a><a href=/b rel=\"NoFollow noopener\">b</a>"
	    "<a href=/c rel=\"noopener\tnofollow\">c</a>"
	    "<a href=/d rel=\"nofollowing ugc sponsored\">d</a>"
	    "<area href=/e rel=nofollow><a href=/f>f</a>"
	    "<link rel=nofollow href=/g>", false, &info),
	    "http://example.com/d a\nhttp://example.com/f a\nhttp://example.com/g link\n",
	    "rel=nofollow among other tokens, any case, drops a and area links");
	ok(info.nofollowed == 4 && info.outdeg == 3 && !info.nofollow,
	    "4 not followed (got %zu), out-degree 3", info.nofollowed);

	run_robots(NULL, NULL, "<a href=/x rel=nofollow></a><a href=/x></a>"
	    "<a href=/y rel=nofollow></a><a href=/y rel=nofollow></a>", false, &info);
	ok(info.outdeg == 1 && info.nofollowed == 1, "a target also given followed "
	    "is followed; one not followed twice counts once (got %zu, %zu)",
	    info.outdeg, info.nofollowed);

	snprintf(body, sizeof body, "<meta name=mybot content=noindex>"
	    "<meta name=otherbot content=nofollow>%s", links3);
	run_robots("mybot", NULL, body, false, &info);
	ok(info.noindex && !info.nofollow && info.outdeg == 3,
	    "a meta named for our token counts, one for another does not");
	run_robots(NULL, NULL, body, false, &info);
	ok(!info.noindex, "and without a token neither does");

	const char *h1[] = { "noindex", NULL };
	run_robots(NULL, h1, links3, false, &info);
	ok(info.noindex && !info.nofollow && info.outdeg == 3,
	    "X-Robots-Tag: noindex");
	const char *h2[] = { "otherbot: noindex, nofollow", NULL };
	run_robots("mybot", h2, links3, false, &info);
	ok(!info.noindex && !info.nofollow && info.outdeg == 3,
	    "X-Robots-Tag for another agent: ignored");
	const char *h3[] = { "otherbot: noindex", "MyBot: nofollow", NULL };
	run_robots("mybot", h3, links3, false, &info);
	ok(!info.noindex && info.nofollow && info.outdeg == 0 &&
	    info.nofollowed == 3, "several X-Robots-Tag: ours counts");
	run_robots(NULL, h3, links3, false, &info);
	ok(!info.noindex && !info.nofollow, "without a token, prefixed ones do not");
	const char *h4[] = { "unavailable_after: Wednesday, 03-Nov-2010 15:00:00 GMT, "
	    "max-snippet: 20, nofollow", "noarchive", NULL };
	run_robots(NULL, h4, links3, false, &info);
	ok(!info.noindex && info.nofollow, "valued directives skipped, the rest read");
	const char *h5[] = { "noindex, otherbot: nofollow, mybot:none", NULL };
	run_robots("mybot", h5, links3, false, &info);
	ok(info.noindex && info.nofollow, "agents switch within one value");
	run_robots("x", h5, links3, false, &info);
	ok(info.noindex && !info.nofollow, "unprefixed, then another's");

	is_str(run_robots(NULL, NULL,
	    "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"
	    "<head><meta name=\"robots\" content=\"noindex\"/></head><body>"
	    "<a href=\"/a\" rel=\"nofollow\">a</a><a href=\"/b.html\">b</a></body></html>",
	    true, &info), "http://example.com/b.html a\n",
	    "XHTML: rel=nofollow and meta robots too");
	ok(info.noindex && info.nofollowed == 1 && info.type == PAGE_XML,
	    "XHTML: noindex, 1 not followed");
	const char *h6[] = { "nofollow", NULL };
	is_str(run_robots(NULL, h6, "<?xml version=\"1.0\"?><urlset xmlns="
	    "\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>/s</loc>"
	    "</url></urlset>", true, &info), "", "X-Robots-Tag nofollow on XML");
	ok(info.nofollowed == 1, "XML: 1 not followed");

	/* Not obeyed unless asked. */
	struct extract *ex = extract_new(collect, (void *)"http://example.com/p");
	got_len = 0;
	extract_begin(ex, "http://example.com/p", &info);
	extract_x_robots_tag(ex, "none", 4);
	snprintf(body, sizeof body, "<meta name=robots content=none>"
	    "<a href=/a rel=nofollow>a</a>");
	extract_document(ex, PAGE_HTML, NULL, (const unsigned char *)body,
	    strlen(body));
	extract_free(ex);
	ok(!info.noindex && !info.nofollow && info.outdeg == 1,
	    "without extract_obey_robots_tags every directive is ignored");
}

int
main(void)
{
	test_html();
	test_charsets();
	test_xml();
	test_xml_errors();
	test_types();
	test_robots_redirect();
	test_dedup_many();
	test_http();
	test_robots_tags();
	url_cleanup();
	return done_testing();
}
