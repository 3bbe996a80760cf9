/* The HTML tokenizer of src/lib/htmltok.c: a page for each state and each
 * tree construction fact it implements, with the elements that the HTML
 * standard (WHATWG) gives for it, worked out by hand from the standard's
 * rules.  "test-htmltok --write DIR" writes the pages into DIR instead,
 * one file each, for t/html-tokenizer.t to compare with Gumbo's parser. */
#include <errno.h>

#include "htmltok.h"
#include "tap.h"

struct page {
	const char *what, *html, *elements;
	size_t len;	/* 0: strlen(html) */
};

static const struct page pages[] = {
	{ "a start tag", "<p>x<a href=x>t</a>", "p;a href=x;", 0 },
	{ "names in lower case", "<A HREF=\"X\" ReL=Y>", "a href=X rel=Y;", 0 },
	{ "double-quoted, single-quoted and unquoted values",
	  "<a href=\"a b\" rel='n f' title=c>", "a href=a b rel=n f title=c;", 0 },
	{ "a duplicate attribute: the first wins", "<a href=1 HREF=2 href=3>",
	  "a href=1;", 0 },
	{ "self-closing tags; an unquoted value takes the '/'",
	  "<link href=\"x\"/><link href=y/>", "link href=x;link href=y/;", 0 },
	{ "an attribute name beginning with '='", "<a =b=c href=d>",
	  "a =b=c href=d;", 0 },
	{ "a missing value; '<' in a name", "<a href= ><a x <b>",
	  "a href=;a x= <b=;", 0 },
	{ "'/' between attributes", "<a/b href=1 / rel=2>", "a b= href=1 rel=2;", 0 },
	{ "a tag the input ends in is dropped", "<a href=1><a href=\"2>",
	  "a href=1;", 0 },
	{ "comments", "<!-- <a href=1> --><a href=2><!--><a href=3><!---><a href=4>"
	  "<!-- --!><a href=5><!-- -- ><a href=6> --!-><a href=7> ---->"
	  "<a href=8>", "a href=2;a href=3;a href=4;a href=5;a href=8;", 0 },
	{ "a DOCTYPE ends at its first '>', quoted or not",
	  "<!DOCTYPE html PUBLIC \"a>b\"><a href=1>", "a href=1;", 0 },
	{ "bogus comments", "<?php <a href=1> ?><a href=2></ x><a href=3></><a href=4>"
	  "<!x <a href=5>", "a href=2;a href=3;a href=4;", 0 },
	{ "CDATA in HTML content is a bogus comment",
	  "<![CDATA[<a href=1>]]><a href=2>", "a href=2;", 0 },
	{ "CDATA in foreign content",
	  "<svg><![CDATA[<a href=1></svg>]]></svg><a href=2>", "svg;a href=2;", 0 },
	{ "RCDATA: title and textarea",
	  "<title><a href=1></titlex></title><textarea><a href=2></TEXTAREA >"
	  "<a href=3>", "title;textarea;a href=3;", 0 },
	{ "RAWTEXT: style, xmp, iframe, noembed, noframes",
	  "<style><a href=1></style><xmp><a href=2></xmp><iframe src=i><a href=3>"
	  "</iframe><noembed><a href=4></noembed><noframes><a href=5></noframes>"
	  "<a href=6>", "style;xmp;iframe src=i;noembed;noframes;a href=6;", 0 },
	{ "RAWTEXT: noscript, as with scripting enabled",
	  "<body><noscript><a href=1></noscript><a href=2>",
	  "body;noscript;a href=2;", 0 },
	{ "script data", "<script>\"<a href=1>\"</script><a href=2>",
	  "script;a href=2;", 0 },
	{ "script data escaped, then double escaped",
	  "<script><!--<script></script><a href=1></script>--></script><a href=2>",
	  "script;a href=2;", 0 },
	{ "the end tag of escaped script data",
	  "<script><!--</script><a href=1>", "script;a href=1;", 0 },
	{ "double escaped script data left by \"-->\"",
	  "<script><!--<script>--></script><a href=1>", "script;a href=1;", 0 },
	{ "a script end tag with attributes",
	  "<script></script x=\"</script>\"><a href=1>", "script;a href=1;", 0 },
	{ "PLAINTEXT", "<plaintext></plaintext><a href=1>", "plaintext;", 0 },
	{ "named references, with the legacy rules of attribute values",
	  "<a href=\"?a=1&amp;b=2&lt;&notit;&notin;&not=x&copy&amp\">",
	  "a href=?a=1&b=2<&notit;\xe2\x88\x89&not=x\xc2\xa9&;", 0 },
	{ "numeric references", "<a href=\"&#x41;&#65&#0;&#x80;&#x110000;&#xD800;"
	  "&#;&#x;&#X9f;\">", "a href=AA\xef\xbf\xbd\xe2\x82\xac\xef\xbf\xbd"
	  "\xef\xbf\xbd&#;&#x;\xc5\xb8;", 0 },
	{ "references in unquoted values", "<a href=&lt;x&gt rel=&amp;>",
	  "a href=<x> rel=&;", 0 },
	{ "U+0000 and CR in values", "<a href=\"a\0b\r\nc\rd\">",
	  "a href=a\xef\xbf\xbd" "b\nc\nd;", 19 },
	{ "invalid UTF-8 in values", "<a href=\"\xff\xe2\x82x\">",
	  "a href=\xef\xbf\xbd\xef\xbf\xbdx;", 0 },
	{ "svg content is not HTML, except in an integration point",
	  "<svg><a href=1></a><foreignObject><a href=2></a></foreignObject>"
	  "<title><a href=3></title></svg><a href=4>",
	  "svg;a href=2;a href=3;a href=4;", 0 },
	{ "math content, and its text integration points",
	  "<math><mi><a href=1></a></mi><a href=2></a></math><a href=3>",
	  "math;a href=1;a href=3;", 0 },
	{ "annotation-xml for HTML",
	  "<math><annotation-xml encoding=\"Text/HTML\"><a href=1></a></annotation-xml>"
	  "<annotation-xml><a href=2></math>", "math;a href=1;", 0 },
	{ "tags that break out of foreign content",
	  "<svg><p><a href=1></p><svg><font color=red><a href=2><svg><font>"
	  "<a href=3>", "svg;p;a href=1;svg;font color=red;a href=2;svg;", 0 },
	{ "no RAWTEXT or script data in foreign content",
	  "<svg><style><a href=1></style><script><a href=2></script></svg>"
	  "<a href=3>", "svg;a href=3;", 0 },
	{ "a self-closing svg has no content", "<svg/><a href=1>",
	  "svg;a href=1;", 0 },
	{ "a form inside a form is dropped",
	  "<form action=1><form action=2></form><form action=3>",
	  "form action=1;form action=3;", 0 },
	{ "a select drops the start tags in it",
	  "<select><a href=1><option>x</select><a href=2>",
	  "select;option;a href=2;", 0 },
	{ "a textarea ends a select", "<select><textarea><a href=1></textarea>",
	  "select;textarea;", 0 },
	{ "a frameset keeps only frame elements",
	  "<frameset><frame src=1><a href=2><noframes><a href=3></noframes>"
	  "<frameset><frame src=4></frameset></frameset><frame src=5><link href=6>",
	  "frameset;frame src=1;frameset;frame src=4;", 0 },
	{ "frame elements outside a frameset are dropped",
	  "<body><frame src=1><a href=2>", "body;a href=2;", 0 },
	{ "text or an img before a frameset: the frameset is ignored",
	  "x<frameset><frame src=1><img><frameset><a href=2>",
	  "img;a href=2;", 0 },
};

static void
dump(void *arg, const char *name, const char *const *atts)
{
	char *out = arg;
	size_t n = strlen(out);
	n += (size_t)snprintf(out + n, 1024 - n, "%s", name);
	for (; atts[0]; atts += 2)
		n += (size_t)snprintf(out + n, 1024 - n, " %s=%s", atts[0], atts[1]);
	snprintf(out + n, 1024 - n, ";");
}

static int
write_pages(const char *dir)
{
	for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/page%02zu.html", dir, i);
		FILE *f = fopen(path, "wb");
		const struct page *p = &pages[i];
		size_t len = p->len ? p->len : strlen(p->html);
		if (!f || fwrite(p->html, 1, len, f) != len || fclose(f) != 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return write_pages(argv[2]);
	struct htmltok *tok = htmltok_new();
	for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
		const struct page *p = &pages[i];
		char got[1024] = "";
		htmltok_parse(tok, (const unsigned char *)p->html,
		    p->len ? p->len : strlen(p->html), dump, got);
		is_str(got, p->elements, "%s", p->what);
	}
	ok(htmltok_charref_code_point(0x9d) == 0x9d &&
	    htmltok_charref_code_point(0x8a) == 0x160 &&
	    htmltok_charref_code_point(0xdfff) == 0xfffd &&
	    htmltok_charref_code_point(0xffff) == 0xffff,
	    "numeric references: C1 controls, surrogates, noncharacters");
	htmltok_free(tok);
	return done_testing();
}
