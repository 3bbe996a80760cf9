/* The links and pages streams of src/lib/linkstream.c: rows written and
 * read back, the meaning of the how column (+xml, the sitemap hints), the
 * type column, and the words of the rows refused. */
#include <fcntl.h>
#include <unistd.h>

#include "linkstream.h"
#include "tap.h"
#include "wa.h"

/* A temporary file holding text; its path in path. */
static void
write_file(char path[], const char *text)
{
	int fd = mkstemp(path);
	size_t n = strlen(text);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n || close(fd) != 0)
		wa_die_errno("%s", path);
}

/* What f holds from its start, in buf. */
static const char *
contents(FILE *f, char *buf, size_t size)
{
	rewind(f);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	return buf;
}

static void
test_links_written_and_read(void)
{
	static const struct {
		const char *how;
		bool xml, hint;
	} cases[] = {
		{ "a", false, false }, { "a+xml", true, false },
		{ "sitemap", false, true }, { "sitemap+xml", true, true },
		{ "xlink+xml", true, false }, { "rss", false, false },
	};
	char buf[1024], path[] = "/tmp/test-linkstream.XXXXXX";
	write_file(path, "");
	FILE *f = fopen(path, "w+");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		links_write(f, "http://e/", "http://e/x", cases[i].how);
	/* A row without its how, as older streams have. */
	fputs("http://e/y\thttp://e/z\n", f);
	fflush(f);
	is_str(contents(f, buf, sizeof buf), "http://e/\thttp://e/x\ta\n"
	    "http://e/\thttp://e/x\ta+xml\nhttp://e/\thttp://e/x\tsitemap\n"
	    "http://e/\thttp://e/x\tsitemap+xml\nhttp://e/\thttp://e/x\txlink+xml\n"
	    "http://e/\thttp://e/x\trss\nhttp://e/y\thttp://e/z\n",
	    "links_write: src, dst, how, a row a line");
	fclose(f);

	struct tsv *t = links_open(path, TSV_STRICT);
	struct link_row row;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ok(tsv_next(t), "row %zu read back", i + 1);
		links_row(t->col, t->ncol, &row);
		ok(strcmp(row.src, "http://e/") == 0 && strcmp(row.dst, "http://e/x") == 0 &&
		    row.xml_target == cases[i].xml && row.hint == cases[i].hint,
		    "how %s: %san XML target, %sa hint", cases[i].how,
		    cases[i].xml ? "" : "not ", cases[i].hint ? "" : "not ");
	}
	ok(tsv_next(t), "a row without how read");
	links_row(t->col, t->ncol, &row);
	ok(strcmp(row.dst, "http://e/z") == 0 && !row.xml_target && !row.hint,
	    "no how: neither an XML target nor a hint");
	ok(!tsv_next(t), "the end");
	tsv_close(t);
	unlink(path);
}

static void
test_pages_written(void)
{
	char buf[1024];
	FILE *f = tmpfile();
	pages_write(f, &(struct page_row){ .url = "http://e/a.xml", .type = PAGE_XML,
	    .timed = true, .time = 1795000000, .digest = "sha1:ABC", .outdeg = 3,
	    .root = "rss", .doctype = "http://e/rss.dtd" });
	pages_write(f, &(struct page_row){ .url = "http://e/gone", .type = PAGE_DEAD,
	    .digest = NULL, .root = "", .doctype = "" });
	pages_write(f, &(struct page_row){ .url = "http://e/b", .type = PAGE_ERROR,
	    .timed = true, .time = -1, .digest = "", .root = "", .doctype = "" });
	fflush(f);
	is_str(contents(f, buf, sizeof buf),
	    "http://e/a.xml\txml\t1795000000\tsha1:ABC\t3\trss\thttp://e/rss.dtd\n"
	    "http://e/gone\tdead\t-\t-\t0\t-\t-\n"
	    "http://e/b\terror\t-1\t-\t0\t-\t-\n",
	    "pages_write: the seven columns, '-' for what is unknown");
	fclose(f);
}

static void
test_page_types(void)
{
	for (int type = 0; type < PAGE_TYPES; type++)
		ok(pages_type(page_type_names[type]) == (type == PAGE_XML_SUSPECT ? -1 : type),
		    "type column %s: %s", page_type_names[type],
		    type == PAGE_XML_SUSPECT ? "refused, no fetched page is one" : "read");
	ok(pages_type("HTML") == -1 && pages_type("") == -1, "other names are refused");
}

/* The messages tsv_close shows for the rows refused, with this program's
 * name and the file's path cut out. */
static const char *
refusals(struct tsv *t, const char *path, char *buf, size_t size)
{
	char errpath[] = "/tmp/test-linkstream-err.XXXXXX";
	write_file(errpath, "");
	fflush(stderr);
	int saved = dup(2), fd = open(errpath, O_WRONLY);
	dup2(fd, 2);
	tsv_close(t);
	fflush(stderr);
	dup2(saved, 2);
	close(fd);
	close(saved);
	FILE *f = fopen(errpath, "r");
	char raw[2048];
	contents(f, raw, sizeof raw);
	fclose(f);
	unlink(errpath);
	size_t n = 0;
	for (const char *p = raw; *p; ) {
		const char *at = strstr(p, path);
		size_t keep = at ? (size_t)(at - p) : strlen(p);
		n += (size_t)snprintf(buf + n, size - n, "%.*s", (int)keep, p);
		p += keep + (at ? strlen(path) : 0);
	}
	return buf;
}

static void
test_refusals(void)
{
	char path[] = "/tmp/test-linkstream.XXXXXX", buf[2048];
	write_file(path, "mailto:x\thttp://e/\n"
	    "http://e/\thttp://a..b/\n"
	    "http://e/\thttp://e/\n");
	struct tsv *t = links_open(path, 0);
	ok(tsv_next(t), "links: first row");
	links_reject_url(t, LINKS_SRC, "unsupported scheme", t->col[LINKS_SRC]);
	ok(tsv_next(t), "links: second row");
	links_reject_url(t, LINKS_DST, "bad host", t->col[LINKS_DST]);
	ok(tsv_next(t), "links: third row");
	is_str(refusals(t, path, buf, sizeof buf),
	    "test-linkstream: :1: source: unsupported scheme: mailto:x\n"
	    "test-linkstream: :2: destination: bad host: http://a..b/\n"
	    "test-linkstream: : 2 lines rejected\n",
	    "links: the refused URLs named by their column");
	unlink(path);

	char pages[] = "/tmp/test-linkstream.XXXXXX";
	write_file(pages, "http://e/\txml-suspect\nhttp://e/x\thtml\nhttp://e/y\thtml\n");
	t = pages_open(pages);
	ok(tsv_next(t) && pages_type(t->col[PAGES_TYPE]) < 0, "pages: xml-suspect refused");
	pages_reject_type(t, t->col[PAGES_TYPE]);
	ok(tsv_next(t) && pages_type(t->col[PAGES_TYPE]) == PAGE_HTML, "pages: html read");
	pages_reject_url(t, "bad host", t->col[PAGES_URL]);
	ok(tsv_next(t), "pages: third row");
	is_str(refusals(t, pages, buf, sizeof buf),
	    "test-linkstream: :1: unknown page type 'xml-suspect' (html, xml, dtd, other,"
	    " error, dead, robots, sitemap, noindex or -)\n"
	    "test-linkstream: :2: URL: bad host: http://e/x\n"
	    "test-linkstream: : 2 lines rejected\n",
	    "pages: the refused types and URLs");
	unlink(pages);
}

int
main(int argc, char **argv)
{
	wa_init(argc, argv, "");
	test_links_written_and_read();
	test_pages_written();
	test_page_types();
	test_refusals();
	return done_testing();
}
