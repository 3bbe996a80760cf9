/* Fuzz target: link extraction from HTML and from XML (src/lib/extract.h).
 *
 * Input: one byte that chooses the parser (HTML, XML, or as
 * extract_type_of decides from the body and a URL suffix) and the HTTP
 * charset, then the body.  Checks, beyond no crash, no sanitizer finding
 * and no leak:
 *   - every link comes from the page's URL, goes to a canonical http(s)
 *     URL (url_canon gives it back unchanged) and has a "how" of
 *     lower-case letters, digits and "-+_";
 *   - a page gives each target once, and outdeg counts the links given;
 *   - the type is html for HTML, xml or error for XML; the root and the
 *     doctype are NUL-terminated in their room, the doctype with no space,
 *     tab or newline;
 *   - parsing the same page again with the same extractor gives the same
 *     links and facts (no state leaks from one page to the next);
 *   - with robots directives obeyed (the top bit of the first byte; the
 *     body's first 200 bytes are an X-Robots-Tag value too), a nofollow
 *     page gives no link;
 *   - the body read as robots.txt gives only "sitemap" links, and as a
 *     redirect's Location exactly url_resolve's answer ("+xml" may follow
 *     the how of both). */
#include <stdbool.h>

#include "extract.h"
#include "fuzz.h"
#include "url.h"

struct extract_seen {
	const char *page;
	char *text;		/* "dst how\n" each link */
	size_t len, cap, n;
	const char *only_how;	/* if not NULL, the "how" every link must have */
};

static void
extract_collect(void *arg, const char *src, const char *dst, const char *how)
{
	struct extract_seen *s = arg;
	char again[URL_BUFSIZE];
	const char *why;
	fuzz_check(strcmp(src, s->page) == 0, "link from %.200s, not the page", src);
	fuzz_check(strncmp(dst, "http://", 7) == 0 || strncmp(dst, "https://", 8) == 0,
	    "link to %.200s: not http(s)", dst);
	fuzz_check(url_canon(dst, again, &why) && strcmp(again, dst) == 0,
	    "link to %.200s: not canonical", dst);
	fuzz_check(*how != '\0', "empty how");
	for (const char *h = how; *h; h++)
		fuzz_check((*h >= 'a' && *h <= 'z') || (*h >= '0' && *h <= '9') ||
		    strchr("-+_", *h), "how \"%.40s\"", how);
	if (s->only_how) {
		size_t ol = strlen(s->only_how);
		fuzz_check(strncmp(how, s->only_how, ol) == 0 && (how[ol] == '\0' ||
		    strcmp(how + ol, "+xml") == 0), "how %s, expected %s", how, s->only_how);
	}
	size_t dl = strlen(dst), hl = strlen(how);
	/* Each target once: no earlier line starts with "dst ". */
	for (const char *line = s->text; line && line < s->text + s->len;
	    line = strchr(line, '\n') + 1)
		fuzz_check(!(strncmp(line, dst, dl) == 0 && line[dl] == ' '),
		    "link to %.200s given twice", dst);
	if (s->len + dl + hl + 3 > s->cap) {
		s->cap = 2 * (s->len + dl + hl + 3);
		s->text = wa_realloc(s->text, s->cap);
	}
	s->len += (size_t)sprintf(s->text + s->len, "%s %s\n", dst, how);
	s->n++;
}

static void
extract_check_info(const struct extract_info *info, const struct extract_seen *s,
    enum page_type type)
{
	fuzz_check(info->outdeg == s->n, "outdeg %zu, %zu links given", info->outdeg, s->n);
	/* Either kind is an error when it nests too deep or expands too much;
	 * an XML document may be a sitemap. */
	if (type == PAGE_HTML || type == PAGE_XML)
		fuzz_check(info->type == type || info->type == PAGE_ERROR ||
		    (type == PAGE_XML && info->type == PAGE_SITEMAP),
		    "%s page of type %s", page_type_names[type],
		    page_type_names[info->type]);
	fuzz_check(memchr(info->root, '\0', sizeof info->root) != NULL, "root not terminated");
	fuzz_check(memchr(info->doctype, '\0', sizeof info->doctype) != NULL,
	    "doctype not terminated");
	fuzz_check(strpbrk(info->doctype, " \t\r\n") == NULL, "doctype \"%.200s\" has a blank",
	    info->doctype);
	fuzz_check(memchr(info->error, '\0', sizeof info->error) != NULL,
	    "error not terminated");
}

static int
extract_fuzz_one(const uint8_t *data, size_t size)
{
	static const char *const pages[] = {
		"http://www.test:8080/dir/page.html", "https://docs.test/catalog.xml",
		"http://feeds.test:8080/news", "http://[::1]:8080/a/b?c=d",
	};
	static const char *const charsets[] = { NULL, "utf-8", "iso-8859-1", "koi8-r",
		"utf-16", "no-such-charset" };
	static const char *const media[] = { "text/html", "application/xml", "",
		"application/octet-stream" };
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	const unsigned char *body = data + 1;
	size_t len = size - 1;
	const char *page = pages[(mode >> 2) & 3];
	const char *charset = charsets[(mode >> 4) % 6];
	enum page_type type = (mode & 3) == 0 ? PAGE_HTML : (mode & 3) == 1 ?
	    PAGE_XML : extract_type_of(media[mode & 3], page, body, len);
	fuzz_check(type >= PAGE_HTML && type <= PAGE_ERROR, "extract_type_of gave %d",
	    (int)type);

	struct extract_seen first = { .page = page }, second = { .page = pages[0] };
	struct extract_info info, info2;
	bool obey = mode & 0x80;
	size_t tag_len = len < 200 ? len : 200;
	struct extract *ex = extract_new(extract_collect, &first);
	if (obey)
		extract_obey_robots_tags(ex, "wa-fetch");
	extract_begin(ex, page, &info);
	extract_x_robots_tag(ex, (const char *)body, tag_len);
	extract_document(ex, type, charset, body, len);
	extract_check_info(&info, &first, type);
	fuzz_check(obey || (!info.noindex && !info.nofollow && !info.nofollowed),
	    "robots directives obeyed unasked");
	fuzz_check(!info.nofollow || info.outdeg == 0, "nofollow page gave %zu links",
	    info.outdeg);
	extract_free(ex);

	/* The same page again, after another page, with one extractor. */
	ex = extract_new(extract_collect, &second);
	if (obey)
		extract_obey_robots_tags(ex, "wa-fetch");
	extract_begin(ex, pages[0], &info2);
	extract_document(ex, PAGE_HTML, NULL, (const unsigned char *)"<a href=x>x</a>", 15);
	second.page = page;
	second.len = second.n = 0;
	extract_begin(ex, page, &info2);
	extract_x_robots_tag(ex, (const char *)body, tag_len);
	extract_document(ex, type, charset, body, len);
	fuzz_check(second.n == first.n && second.len == first.len &&
	    (first.len == 0 || memcmp(first.text, second.text, first.len) == 0),
	    "a second parse gave other links");
	fuzz_check(info.type == info2.type && info.outdeg == info2.outdeg &&
	    info.dropped == info2.dropped && strcmp(info.root, info2.root) == 0 &&
	    strcmp(info.doctype, info2.doctype) == 0 && info.noindex == info2.noindex &&
	    info.nofollow == info2.nofollow && info.nofollowed == info2.nofollowed,
	    "a second parse gave other facts");

	/* The body as robots.txt and as a Location. */
	struct extract_seen robots = { .page = page, .only_how = "sitemap" };
	struct extract *rex = extract_new(extract_collect, &robots);
	extract_begin(rex, page, &info2);
	extract_robots(rex, body, len);
	fuzz_check(info2.outdeg == robots.n, "robots: outdeg %zu, %zu links", info2.outdeg,
	    robots.n);
	extract_free(rex);

	char *ref = wa_strndup((const char *)body, len), want[URL_BUFSIZE];
	const char *why;
	bool ok = url_resolve(page, ref, want, &why) &&
	    (strncmp(want, "http://", 7) == 0 || strncmp(want, "https://", 8) == 0);
	struct extract_seen loc = { .page = page, .only_how = "redirect" };
	rex = extract_new(extract_collect, &loc);
	extract_begin(rex, page, &info2);
	extract_link(rex, ref, "redirect");
	fuzz_check(loc.n == ok && (!ok || (strncmp(loc.text, want, strlen(want)) == 0 &&
	    loc.text[strlen(want)] == ' ')), "Location \"%.200s\": %zu links, expected %s",
	    ref, loc.n, ok ? want : why);
	extract_free(rex);

	free(ref);
	free(loc.text);
	free(robots.text);
	free(first.text);
	free(second.text);
	extract_free(ex);
	return 0;
}

FUZZ_TARGET(extract_fuzz_one)
