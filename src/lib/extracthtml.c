/* HTML and XHTML elements, and the bytes of an HTML page repaired for
 * libxml2's HTML parser (extractpriv.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parserInternals.h>

#include "extractpriv.h"
#include "htmltok.h"
#include "msg.h"
#include "utf8.h"

static const char *
attr(const char *const *atts, const char *name)
{
	for (; atts && atts[0]; atts += 2)
		if (strcmp(atts[0], name) == 0)
			return atts[1] ? atts[1] : "";
	return NULL;
}

bool
ex_equal_trimmed_ci(const char *s, const char *word)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(word);
	if (strncasecmp(s, word, n) != 0)
		return false;
	for (s += n; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* The URL of a meta refresh's content, as the WHATWG "shared declarative
 * refresh steps" parse it: "5; url='next.html'"; NULL if there is none. */
static char *
refresh_url(const char *content, char *out, size_t size)
{
	const char *p = content;
	while (isspace((unsigned char)*p))
		p++;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == ';' || *p == ',')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	if (strncasecmp(p, "url", 3) == 0) {
		const char *q = p + 3;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '=') {
			q++;
			while (isspace((unsigned char)*q))
				q++;
			p = q;
		}
	}
	char quote = 0;
	if (*p == '"' || *p == '\'')
		quote = *p++;
	size_t n = quote ? strcspn(p, quote == '"' ? "\"" : "'") : strlen(p);
	if (n == 0 || n >= size)
		return NULL;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* An HTML element (name in lower case) with its attributes as name, value
 * pairs; base is the base for its links (for XHTML, xml:base's). */
void
ex_html_element(struct extract *ex, const char *name, const char *const *atts,
    const char *base)
{
	const char *v;
	char buf[URL_BUFSIZE];
	switch (name[0]) {
	case 'a':
		if ((strcmp(name, "a") == 0 || strcmp(name, "area") == 0) &&
		    (v = attr(atts, "href"))) {
			ex->link_nofollow = ex->obey && ex_rel_nofollow(attr(atts, "rel"));
			ex_give(ex, base, v, name);
			ex->link_nofollow = false;
		}
		break;
	case 'b':
		if (strcmp(name, "base") == 0 && !ex->html_base_seen &&
		    (v = attr(atts, "href"))) {
			/* Only the first base element with an href counts. */
			ex->html_base_seen = true;
			if (ex_resolve(ex->url, v, buf))
				strcpy(ex->base, buf);
		}
		break;
	case 'f':
		if (strcmp(name, "frame") == 0 && (v = attr(atts, "src")))
			ex_give(ex, base, v, name);
		else if (strcmp(name, "form") == 0 && (v = attr(atts, "action"))) {
			const char *method = attr(atts, "method");
			if (!method || ex_equal_trimmed_ci(method, "get"))
				ex_give(ex, base, v, "form");
		}
		break;
	case 'i':
		if (strcmp(name, "iframe") == 0 && (v = attr(atts, "src")))
			ex_give(ex, base, v, name);
		break;
	case 'l':
		if (strcmp(name, "link") == 0 && (v = attr(atts, "href")))
			ex_give(ex, base, v, name);
		break;
	case 'm':
		if (strcmp(name, "meta") == 0 && (v = attr(atts, "http-equiv")) &&
		    ex_equal_trimmed_ci(v, "refresh") && (v = attr(atts, "content")) &&
		    refresh_url(v, buf, sizeof buf))
			ex_give(ex, base, buf, "refresh");
		else if (ex->obey && strcmp(name, "meta") == 0 &&
		    (v = attr(atts, "name")) && ex_meta_robots_name(ex, v) &&
		    (v = attr(atts, "content")))
			ex_robots_directives(ex, v, strlen(v), false);
		break;
	}
}

static void
html_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct extract *ex = ctxt->_private;
	if (ctxt->nameNr > EXTRACT_MAX_DEPTH) {
		char why[80];
		snprintf(why, sizeof why, "elements nested deeper than %d: the "
		    "rest is not parsed", EXTRACT_MAX_DEPTH);
		ex_stop_parse(ex, ctxt, why);
		return;
	}
	ex_html_element(ex, (const char *)name, (const char *const *)atts,
	    ex->base);
}

void
ex_html_sax(xmlSAXHandler *sax)
{
	sax->startElement = html_start;
	sax->initialized = 1;
}

static bool
is_utf8_name(const char *charset)
{
	return strcasecmp(charset, "utf-8") == 0 || strcasecmp(charset, "utf8") == 0;
}

/* Whether the start of an HTML body names UTF-8 in a meta element, as
 * the prescan of the WHATWG encoding sniffing algorithm finds it
 * (simplified: the first 1024 bytes, a "charset" in a <meta> tag, then
 * '=', then the name, quoted or not). */
static bool
meta_says_utf8(const unsigned char *body, size_t len)
{
	const char *p = (const char *)body, *end = p + (len < 1024 ? len : 1024);
	while ((p = memchr(p, '<', (size_t)(end - p))) && end - p > 5) {
		const char *tag = p++;
		if (strncasecmp(tag, "<meta", 5) != 0)
			continue;
		const char *gt = memchr(tag, '>', (size_t)(end - tag));
		const char *te = gt ? gt : end;
		for (const char *c = tag + 5; te - c > 7; c++) {
			if (strncasecmp(c, "charset", 7) != 0)
				continue;
			const char *v = c + 7;
			while (v < te && isspace((unsigned char)*v))
				v++;
			if (v == te || *v++ != '=')
				continue;
			while (v < te && (isspace((unsigned char)*v) || *v == '"' || *v == '\''))
				v++;
			size_t n = (size_t)(te - v);
			return (n >= 5 && strncasecmp(v, "utf-8", 5) == 0) ||
			    (n >= 4 && strncasecmp(v, "utf8", 4) == 0);
		}
	}
	return false;
}

/* If the numeric character reference at p ("&#65;", "&#x41", with or
 * without its ';') is one that libxml2's HTML parser reads otherwise than
 * the HTML standard, its length, with the replacement in rep (*rlen
 * bytes); else 0.  libxml2 takes the references to U+0080..U+009F for
 * those C1 controls, and gives U+0000 for a zero, a surrogate, a value
 * past U+10FFFF, a C0 control or U+FFFE/U+FFFF, which ends the attribute
 * value it is in; the standard gives U+FFFD for the first three and keeps
 * the controls.  The replacement is a reference libxml2 reads right, or
 * the control's own byte: so it holds in every ASCII-compatible charset.
 * U+FFFE and U+FFFF, which no such reference can ex_give, become U+FFFD. */
static size_t
charref_fix(const unsigned char *p, const unsigned char *end, char rep[16],
    size_t *rlen)
{
	const unsigned char *q = p + 2;
	bool hex = q < end && (*q == 'x' || *q == 'X');
	uint32_t v = 0;
	if (hex)
		q++;
	const unsigned char *digits = q;
	for (; q < end && (hex ? isxdigit(*q) : isdigit(*q)); q++)
		if (v <= 0x10ffff)	/* past it, the value is too large anyway */
			v = v * (hex ? 16 : 10) +
			    (uint32_t)(isdigit(*q) ? *q - '0' : tolower(*q) - 'a' + 10);
	if (q == digits)
		return 0;
	if (q < end && *q == ';')
		q++;
	uint32_t c = v == 0xfffe || v == 0xffff ? 0xfffd :
	    htmltok_charref_code_point(v);
	if (c == v && xmlIsCharQ(v))
		return 0;
	if (c < 0x80) {
		rep[0] = (char)c;
		*rlen = 1;
	} else {
		*rlen = (size_t)snprintf(rep, 16, "&#x%X;", (unsigned)c);
	}
	return (size_t)(q - p);
}

#define BYTES_ONES 0x0101010101010101ULL
#define BYTES_HIGHS 0x8080808080808080ULL

/* The high bit set in the bytes of w equal to c, for an ASCII w (a
 * non-ASCII byte may set it in its neighbours too, which callers that
 * refuse non-ASCII bytes anyway do not mind). */
static uint64_t
bytes_equal(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (BYTES_ONES * c);
	return (x - BYTES_ONES) & ~x & BYTES_HIGHS;
}

/* Whether none of the 8 bytes of w is non-ASCII, NUL or '&'. */
static bool
plain8(uint64_t w)
{
	return !((w & BYTES_HIGHS) | bytes_equal(w, 0) | bytes_equal(w, '&'));
}

/* An HTML page in an ASCII-compatible charset made what libxml2's HTML
 * parser reads as the HTML standard's tokenizer does, into out (NULL:
 * only measured); returns its length and counts the changes in *fixes.
 * A NUL byte becomes U+FFFD, as the standard reads U+0000 in names and
 * values: libxml2 takes it for the end of the input in most places and
 * loses the rest of the page.  Numeric character references are fixed
 * (charref_fix).  In a UTF-8 page each invalid sequence becomes U+FFFD, as
 * browsers decode: libxml2 would read the bytes after a bad one as
 * ISO-8859-1, and the later non-ASCII links with them.  The page grows 3
 * times at most. */
static size_t
repair_html(const unsigned char *body, size_t len, bool utf8,
    unsigned char *out, size_t *fixes)
{
	static const char fffd[3] = { '\xef', '\xbf', '\xbd' };
	const unsigned char *p = body, *end = body + len, *run = body;
	size_t o = 0, n, part, rlen;
	char rep[16];
	*fixes = 0;
	while (p < end) {
		/* Pages are mostly plain ASCII: eight bytes a step through it. */
		uint64_t w;
		while (end - p >= 8 && (memcpy(&w, p, 8), plain8(w)))
			p += 8;
		if (p == end)
			break;
		if (*p == 0) {
			/* U+FFFD as the page's charset holds it: in UTF-8 its
			 * bytes, else a reference, while the page stays within
			 * 3 times its size; past that the page is more binary
			 * than text, and a NUL is dropped, as the standard
			 * drops it in text. */
			if (utf8)
				memcpy(rep, fffd, rlen = sizeof fffd);
			else if (o + (size_t)(p - run) + 8 + (size_t)(end - p - 1) <= 3 * len)
				memcpy(rep, "&#xFFFD;", rlen = 8);
			else
				rlen = 0;
			n = 1;
		} else if (*p == '&' && end - p > 2 && p[1] == '#' &&
		    (n = charref_fix(p, end, rep, &rlen))) {
			;
		} else if (*p >= 0x80 && utf8) {
			if ((n = utf8_sequence(p, end, &part))) {
				p += n;
				continue;
			}
			memcpy(rep, fffd, rlen = sizeof fffd);
			n = part;
		} else {
			p++;
			continue;
		}
		if (out) {
			memcpy(out + o, run, (size_t)(p - run));
			memcpy(out + o + (size_t)(p - run), rep, rlen);
		}
		o += (size_t)(p - run) + rlen;
		p += n;
		run = p;
		++*fixes;
	}
	if (out)
		memcpy(out + o, run, (size_t)(end - run));
	return o + (size_t)(end - run);
}

/* Whether none of the 8 bytes of w is non-ASCII or ESC (which begins the
 * shifts of ISO-2022 charsets). */
static bool
ascii8(uint64_t w)
{
	return !((w & BYTES_HIGHS) | bytes_equal(w, 0x1b));
}

static bool
ascii_text(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint64_t w;
	for (; end - p >= 8; p += 8)
		if (memcpy(&w, p, 8), !ascii8(w))
			return false;
	for (; p < end; p++)
		if (*p >= 0x80 || *p == 0x1b)
			return false;
	return true;
}

/* Whether a charset has characters of more than one byte each, some of
 * whose bytes are NUL: UTF-16 and UTF-32 by their names and their WHATWG
 * labels. */
static bool
is_wide(const char *charset)
{
	static const char *const prefixes[] = {
		"utf-16", "utf16", "utf-32", "utf32", "ucs-2", "ucs2", "ucs-4",
		"ucs4", "iso-10646-ucs", "csunicode", "unicodefeff", "unicodefffe",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncasecmp(charset, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return strcasecmp(charset, "unicode") == 0;
}

/* Whether the page's charset is wide: is_wide, or so detected by libxml2
 * when none is named. */
static bool
wide_page(const char *charset, const unsigned char *body, size_t len)
{
	xmlCharEncoding enc = charset || len < 4 ? XML_CHAR_ENCODING_NONE :
	    xmlDetectCharEncoding(body, 4);
	return charset ? is_wide(charset) : enc == XML_CHAR_ENCODING_UTF16LE ||
	    enc == XML_CHAR_ENCODING_UTF16BE || enc == XML_CHAR_ENCODING_UCS4LE ||
	    enc == XML_CHAR_ENCODING_UCS4BE || enc == XML_CHAR_ENCODING_UCS4_2143 ||
	    enc == XML_CHAR_ENCODING_UCS4_3412;
}

bool
ex_html_tokenizable(const char *charset, const unsigned char *body, size_t len)
{
	if (charset && is_utf8_name(charset))
		return true;
	if (wide_page(charset, body, len))
		return false;
	return (!charset && meta_says_utf8(body, len)) || ascii_text(body, len);
}

static void
tokenized_element(void *arg, const char *name, const char *const *atts)
{
	struct extract *ex = arg;
	ex_html_element(ex, name, atts, ex->base);
}

void
ex_html_tokenize(struct extract *ex, const unsigned char *body, size_t len)
{
	if (!ex->tok)
		ex->tok = htmltok_new();
	htmltok_parse(ex->tok, body, len, tokenized_element, ex);
}

/* body as repair_html makes it, in ex->repaired; body itself if nothing
 * needs a change or its charset is wide. */
const unsigned char *
ex_prepare_html(struct extract *ex, const char *charset,
    const unsigned char *body, size_t *len)
{
	if (wide_page(charset, body, *len))
		return body;
	bool utf8 = charset ? is_utf8_name(charset) : meta_says_utf8(body, *len);
	size_t fixes, n = repair_html(body, *len, utf8, NULL, &fixes);
	if (!fixes)
		return body;
	if (n > ex->repaired_cap) {
		ex->repaired_cap = n;
		free(ex->repaired);
		ex->repaired = wa_malloc(ex->repaired_cap);
	}
	*len = repair_html(body, *len, utf8, ex->repaired, &fixes);
	return ex->repaired;
}
