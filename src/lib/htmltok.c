/* The HTML standard's tokenizer for the start tags of a page (htmltok.h).
 * The states that only pass over text (data, RCDATA, RAWTEXT, comments,
 * DOCTYPE, bogus comments, CDATA) search for the bytes that end them;
 * the states of tags and script data go byte by byte. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "htmlentities.h"
#include "htmltok.h"
#include "msg.h"
#include "utf8.h"

enum ns { NS_HTML, NS_SVG, NS_MATH };

/* An element of the stack of open elements, kept from the first svg or
 * math element in HTML content until it is popped. */
struct open_element {
	enum ns ns;
	bool integration;	/* an HTML integration point */
	bool text_integration;	/* a MathML text integration point */
	size_t name;		/* its offset in names */
};

/* What the tokenizer reads after a start tag, as the tree builder sets it. */
enum text_state { TEXT_DATA, TEXT_RCDATA, TEXT_RAWTEXT, TEXT_SCRIPT,
	TEXT_PLAINTEXT };

struct htmltok {
	const unsigned char *p, *end;
	htmltok_element_fn *fn;
	void *arg;
	/* The tag being read: its name, then its attributes' names and
	 * values, each ending in NUL. */
	char *buf;
	size_t len, cap;
	size_t *attr_at;	/* offsets of the attribute names in buf */
	size_t nattrs, attr_cap;
	const char **atts;
	size_t atts_cap;
	bool self_closing;
	/* The tree's facts */
	struct open_element *stack;
	size_t depth, stack_cap;
	char *names;
	size_t names_len, names_cap;
	bool form_open, in_select, in_frameset, frameset_ok;
	size_t framesets_open;	/* in_frameset: 0 after the last one's end */
};

struct htmltok *
htmltok_new(void)
{
	return wa_calloc(1, sizeof(struct htmltok));
}

void
htmltok_free(struct htmltok *tok)
{
	if (!tok)
		return;
	free(tok->buf);
	free(tok->attr_at);
	free(tok->atts);
	free(tok->stack);
	free(tok->names);
	free(tok);
}

/* ---- Bytes ---- */

static bool
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool
is_alpha(unsigned char c)
{
	return (unsigned char)((c | 0x20) - 'a') < 26;
}

static bool
is_digit(unsigned char c)
{
	return (unsigned char)(c - '0') < 10;
}

static bool
is_alnum(unsigned char c)
{
	return is_alpha(c) || is_digit(c);
}

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	*cap = n;
	return wa_realloc(p, n * size);
}

static void
put(struct htmltok *t, const void *s, size_t n)
{
	if (n == 0)
		return;
	if (t->len + n > t->cap)
		t->buf = grow(t->buf, &t->cap, t->len + n, 1);
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

static void
put_byte(struct htmltok *t, char c)
{
	if (t->len == t->cap)
		t->buf = grow(t->buf, &t->cap, t->len + 1, 1);
	t->buf[t->len++] = c;
}

static void
put_code_point(struct htmltok *t, uint32_t c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | (c >> 6 & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | (c >> 12 & 0x3f));
		u[2] = (char)(0x80 | (c >> 6 & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	put(t, u, n);
}

/* The character at p, which is not ASCII, as the decoder reads it: a
 * valid sequence copied, an invalid one U+FFFD; returns the bytes used. */
static size_t
put_non_ascii(struct htmltok *t, const unsigned char *p)
{
	size_t part, n = utf8_sequence(p, t->end, &part);
	if (n) {
		put(t, p, n);
		return n;
	}
	put_code_point(t, 0xfffd);
	return part;
}

/* ---- Character references in attribute values ---- */

/* The code points of the references to U+0080..U+009F: windows-1252's
 * characters at those bytes (the five it leaves undefined stay). */
static const uint16_t c1_windows1252[32] = {
	0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
	0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
};

uint32_t
htmltok_charref_code_point(uint32_t v)
{
	if (v == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0xfffd;
	if (v >= 0x80 && v <= 0x9f)
		return c1_windows1252[v - 0x80];
	return v;
}

static const struct html_entity *
entity(const unsigned char *name, size_t len)
{
	size_t lo = 0, hi = sizeof html_entities / sizeof *html_entities;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = html_entities[mid].name;
		size_t elen = strlen(e);
		int c = memcmp(e, name, elen < len ? elen : len);
		if (c == 0)
			c = elen < len ? -1 : elen > len;
		if (c == 0)
			return &html_entities[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The named character reference state, p after the '&' at an ASCII
 * alphanumeric: the longest name of the table there, decoded, unless it
 * lacks its ';' and an '=' or alphanumeric follows (the attribute value's
 * rule).  Returns where the value goes on; when nothing is decoded, that
 * is p, after an '&' put as it is. */
static const unsigned char *
named_reference(struct htmltok *t, const unsigned char *p)
{
	size_t n = 0, max = (size_t)(t->end - p);
	if (max > HTML_ENTITY_NAME_MAX)
		max = HTML_ENTITY_NAME_MAX;
	while (n < max && is_alnum(p[n]))
		n++;
	if (n < max && p[n] == ';')
		n++;
	const struct html_entity *e = NULL;
	for (; n > 0 && !(e = entity(p, n)); n--)
		;
	if (!e || (p[n - 1] != ';' && p + n < t->end &&
	    (p[n] == '=' || is_alnum(p[n])))) {
		put_byte(t, '&');
		return p;
	}
	put(t, e->chars, strlen(e->chars));
	return p + n;
}

/* The numeric character reference state, p at the '#'. */
static const unsigned char *
numeric_reference(struct htmltok *t, const unsigned char *p)
{
	const unsigned char *q = p + 1, *end = t->end;
	bool hex = q < end && (*q | 0x20) == 'x';
	if (hex)
		q++;
	const unsigned char *digits = q;
	uint32_t v = 0;
	for (; q < end && (is_digit(*q) || (hex && (unsigned char)((*q | 0x20) - 'a') < 6)); q++) {
		uint32_t d = is_digit(*q) ? (uint32_t)(*q - '0') :
		    (uint32_t)((*q | 0x20) - 'a' + 10);
		if (v <= 0x10ffff)	/* past it, any value is too large */
			v = v * (hex ? 16 : 10) + d;
	}
	if (q == digits) {
		put_byte(t, '&');
		return p;
	}
	if (q < end && *q == ';')
		q++;
	put_code_point(t, htmltok_charref_code_point(v));
	return q;
}

/* ---- Tags ---- */

/* The tag or attribute name state: the name at t->p into buf, in lower
 * case; an attribute's ends at '=' too. */
static void
read_name(struct htmltok *t, bool attribute)
{
	const unsigned char *p = t->p, *end = t->end;
	while (p < end) {
		/* Names are mostly lower case letters, digits and '-'. */
		const unsigned char *run = p;
		while (p < end && ((unsigned char)(*p - 'a') < 26 || is_digit(*p) ||
		    *p == '-'))
			p++;
		put(t, run, (size_t)(p - run));
		if (p == end)
			break;
		unsigned char c = *p;
		if (is_space(c) || c == '/' || c == '>' || (attribute && c == '='))
			break;
		if (c >= 0x80) {
			p += put_non_ascii(t, p);
			continue;
		}
		if (c == 0)
			put_code_point(t, 0xfffd);
		else
			put_byte(t, (char)(c >= 'A' && c <= 'Z' ? c + 32 : c));
		p++;
	}
	t->p = p;
}

/* An attribute value's state (quote 0: unquoted) up to its end. */
static void
read_value(struct htmltok *t, unsigned char quote)
{
	const unsigned char *p = t->p, *end = t->end;
	while (p < end) {
		const unsigned char *run = p;
		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '&' &&
		    *p != quote && (quote || (*p != ' ' && *p != '>')))
			p++;
		put(t, run, (size_t)(p - run));
		if (p == end || *p == quote || (!quote && (is_space(*p) || *p == '>')))
			break;
		unsigned char c = *p;
		if (c == '&') {
			p++;
			if (p < end && is_alnum(*p))
				p = named_reference(t, p);
			else if (p < end && *p == '#')
				p = numeric_reference(t, p);
			else
				put_byte(t, '&');
		} else if (c >= 0x80) {
			p += put_non_ascii(t, p);
		} else if (c == '\r') {
			put_byte(t, '\n');
			if (++p < end && *p == '\n')
				p++;
		} else {
			if (c == 0)
				put_code_point(t, 0xfffd);
			else
				put_byte(t, (char)c);
			p++;
		}
	}
	t->p = p;
}

static void
skip_space(struct htmltok *t)
{
	while (t->p < t->end && is_space(*t->p))
		t->p++;
}

/* Drops the attribute just read if an earlier one has its name. */
static void
keep_first_attribute(struct htmltok *t, size_t at)
{
	for (size_t i = 0; i < t->nattrs; i++)
		if (strcmp(t->buf + t->attr_at[i], t->buf + at) == 0) {
			t->len = at;
			return;
		}
	t->attr_at = grow(t->attr_at, &t->attr_cap, t->nattrs + 1,
	    sizeof *t->attr_at);
	t->attr_at[t->nattrs++] = at;
}

/* A tag from its name (t->p at its first letter) to its '>' into buf;
 * false if the input ends first, when the standard drops the tag. */
static bool
read_tag(struct htmltok *t)
{
	t->len = 0;
	t->nattrs = 0;
	t->self_closing = false;
	read_name(t, false);
	put_byte(t, '\0');
	for (;;) {
		skip_space(t);
		if (t->p == t->end)
			return false;
		if (*t->p == '>') {
			t->p++;
			return true;
		}
		if (*t->p == '/') {
			if (++t->p == t->end)
				return false;
			if (*t->p == '>') {
				t->self_closing = true;
				t->p++;
				return true;
			}
			continue;
		}
		size_t at = t->len;
		if (*t->p == '=') {
			put_byte(t, '=');
			t->p++;
		}
		read_name(t, true);
		put_byte(t, '\0');
		skip_space(t);
		if (t->p < t->end && *t->p == '=') {
			t->p++;
			skip_space(t);
			if (t->p == t->end)
				return false;
			if (*t->p == '"' || *t->p == '\'') {
				unsigned char quote = *t->p++;
				read_value(t, quote);
				if (t->p == t->end)
					return false;
				t->p++;
			} else {
				read_value(t, 0);
			}
		}
		put_byte(t, '\0');
		keep_first_attribute(t, at);
	}
}

/* The value of the tag's attribute name, or NULL. */
static const char *
attribute(const struct htmltok *t, const char *name)
{
	for (size_t i = 0; i < t->nattrs; i++) {
		const char *a = t->buf + t->attr_at[i];
		if (strcmp(a, name) == 0)
			return a + strlen(a) + 1;
	}
	return NULL;
}

/* ---- Text ---- */

/* Whether "</NAME" at p ends the text of element name: followed by
 * white space, '/' or '>' (an appropriate end tag). */
static bool
end_tag_at(const struct htmltok *t, const unsigned char *p, const char *name)
{
	size_t n = strlen(name);
	if ((size_t)(t->end - p) < n + 3 || p[1] != '/' ||
	    strncasecmp((const char *)p + 2, name, n) != 0)
		return false;
	unsigned char c = p[n + 2];
	return is_space(c) || c == '/' || c == '>';
}

/* RCDATA and RAWTEXT: to the end tag of the element name. */
static void
skip_raw_text(struct htmltok *t, const char *name)
{
	const unsigned char *p = t->p;
	while ((p = memchr(p, '<', (size_t)(t->end - p)))) {
		if (end_tag_at(t, p, name)) {
			t->p = p;
			return;
		}
		p++;
	}
	t->p = t->end;
}

/* Script data and its escaped states, to "</script" outside the double
 * escaped ones. */
static void
skip_script(struct htmltok *t)
{
	enum { DATA, ESCAPED, DOUBLE } state = DATA;
	const unsigned char *p = t->p, *end = t->end;
	while (p < end) {
		if (state == DATA) {
			if (!(p = memchr(p, '<', (size_t)(end - p))))
				break;
		} else if (*p != '<' && *p != '-') {
			p++;
			continue;
		}
		if (*p == '-') {
			/* "-->" leaves the escaped states. */
			if (end - p >= 3 && p[1] == '-' && p[2] == '>') {
				state = DATA;
				p += 3;
			} else {
				p++;
			}
			continue;
		}
		if (state != DOUBLE && end_tag_at(t, p, "script")) {
			t->p = p;
			return;
		}
		if (state == DATA && end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			state = ESCAPED;
			/* "<!--" ends in the escaped dash dash state: "<!-->"
			 * is back in script data. */
			p += 2;
			continue;
		}
		size_t lead = state == DOUBLE && end - p > 1 && p[1] == '/' ? 2 : 1;
		if (state != DATA && (size_t)(end - p) >= lead + 7 &&
		    strncasecmp((const char *)p + lead, "script", 6) == 0 &&
		    (is_space(p[lead + 6]) || p[lead + 6] == '/' || p[lead + 6] == '>') &&
		    (lead == 2) == (state == DOUBLE)) {
			state = state == DOUBLE ? ESCAPED : DOUBLE;
			p += lead + 6;
			continue;
		}
		p++;
	}
	t->p = end;
}

/* ---- Markup declarations ---- */

static void
skip_past(struct htmltok *t, const unsigned char *from, const char *s)
{
	size_t n = strlen(s);
	const unsigned char *q = memmem(from, (size_t)(t->end - from), s, n);
	t->p = q ? q + n : t->end;
}

/* A comment, p after its "<!--": it ends at "-->" or "--!>", or at once
 * at a '>' or "->" (the comment start states). */
static void
skip_comment(struct htmltok *t, const unsigned char *p)
{
	const unsigned char *end = t->end, *q = p;
	if (p < end && *p == '>') {
		t->p = p + 1;
		return;
	}
	if (end - p >= 2 && p[0] == '-' && p[1] == '>') {
		t->p = p + 2;
		return;
	}
	while ((q = memmem(q, (size_t)(end - q), "--", 2))) {
		if (end - q >= 3 && q[2] == '>') {
			t->p = q + 3;
			return;
		}
		if (end - q >= 4 && q[2] == '!' && q[3] == '>') {
			t->p = q + 4;
			return;
		}
		q++;
	}
	t->p = end;
}

static bool
in_foreign_content(const struct htmltok *t)
{
	return t->depth && t->stack[t->depth - 1].ns != NS_HTML;
}

/* The markup declaration open state, t->p at the '!' of "<!".  Every
 * DOCTYPE state ends at the first '>', and so does a bogus comment. */
static void
markup_declaration(struct htmltok *t)
{
	const unsigned char *p = t->p + 1;
	size_t left = (size_t)(t->end - p);
	if (left >= 2 && p[0] == '-' && p[1] == '-')
		skip_comment(t, p + 2);
	else if (left >= 7 && memcmp(p, "[CDATA[", 7) == 0 && in_foreign_content(t))
		skip_past(t, p + 7, "]]>");
	else
		skip_past(t, p, ">");
}

/* ---- The tree's facts ---- */

enum {
	T_RCDATA = 1 << 0, T_RAWTEXT = 1 << 1, T_SCRIPT = 1 << 2,
	T_PLAINTEXT = 1 << 3,
	T_VOID = 1 << 4,		/* never on the stack */
	T_BREAKOUT = 1 << 5,		/* leaves foreign content */
	T_NOT_FRAMESET_OK = 1 << 6,	/* a frameset after it is ignored */
	T_FORM = 1 << 7, T_FRAME = 1 << 8, T_FRAMESET = 1 << 9,
	T_SELECT = 1 << 10, T_ENDS_SELECT = 1 << 11,	/* input, keygen, textarea */
	T_IN_SELECT = 1 << 12,		/* option, optgroup, template */
	T_SVG = 1 << 13, T_MATH = 1 << 14, T_FONT = 1 << 15,
	T_MGLYPH = 1 << 16, T_INPUT = 1 << 17, T_NOFRAMES = 1 << 18,
};

/* Sorted by name. */
static const struct tag_kind {
	const char *name;
	unsigned flags;
} tag_kinds[] = {
	{ "applet", T_NOT_FRAMESET_OK },
	{ "area", T_VOID | T_NOT_FRAMESET_OK },
	{ "b", T_BREAKOUT },
	{ "base", T_VOID },
	{ "basefont", T_VOID },
	{ "bgsound", T_VOID },
	{ "big", T_BREAKOUT },
	{ "blockquote", T_BREAKOUT },
	{ "body", T_BREAKOUT },
	{ "br", T_VOID | T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "button", T_NOT_FRAMESET_OK },
	{ "center", T_BREAKOUT },
	{ "code", T_BREAKOUT },
	{ "col", T_VOID },
	{ "dd", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "div", T_BREAKOUT },
	{ "dl", T_BREAKOUT },
	{ "dt", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "em", T_BREAKOUT },
	{ "embed", T_VOID | T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "font", T_FONT },
	{ "form", T_FORM },
	{ "frame", T_VOID | T_FRAME },
	{ "frameset", T_FRAMESET },
	{ "h1", T_BREAKOUT },
	{ "h2", T_BREAKOUT },
	{ "h3", T_BREAKOUT },
	{ "h4", T_BREAKOUT },
	{ "h5", T_BREAKOUT },
	{ "h6", T_BREAKOUT },
	{ "head", T_BREAKOUT },
	{ "hr", T_VOID | T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "i", T_BREAKOUT },
	{ "iframe", T_RAWTEXT | T_NOT_FRAMESET_OK },
	{ "image", T_VOID | T_NOT_FRAMESET_OK },
	{ "img", T_VOID | T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "input", T_VOID | T_ENDS_SELECT | T_INPUT },
	{ "keygen", T_VOID | T_ENDS_SELECT | T_NOT_FRAMESET_OK },
	{ "li", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "link", T_VOID },
	{ "listing", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "malignmark", T_MGLYPH },
	{ "marquee", T_NOT_FRAMESET_OK },
	{ "math", T_MATH },
	{ "menu", T_BREAKOUT },
	{ "meta", T_VOID | T_BREAKOUT },
	{ "mglyph", T_MGLYPH },
	{ "nobr", T_BREAKOUT },
	{ "noembed", T_RAWTEXT },
	{ "noframes", T_RAWTEXT | T_NOFRAMES },
	{ "noscript", T_RAWTEXT },
	{ "object", T_NOT_FRAMESET_OK },
	{ "ol", T_BREAKOUT },
	{ "optgroup", T_IN_SELECT },
	{ "option", T_IN_SELECT },
	{ "p", T_BREAKOUT },
	{ "param", T_VOID },
	{ "plaintext", T_PLAINTEXT },
	{ "pre", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "ruby", T_BREAKOUT },
	{ "s", T_BREAKOUT },
	{ "script", T_SCRIPT | T_IN_SELECT },
	{ "select", T_SELECT | T_NOT_FRAMESET_OK },
	{ "small", T_BREAKOUT },
	{ "source", T_VOID },
	{ "span", T_BREAKOUT },
	{ "strike", T_BREAKOUT },
	{ "strong", T_BREAKOUT },
	{ "style", T_RAWTEXT },
	{ "sub", T_BREAKOUT },
	{ "sup", T_BREAKOUT },
	{ "svg", T_SVG },
	{ "table", T_BREAKOUT | T_NOT_FRAMESET_OK },
	{ "template", T_IN_SELECT },
	{ "textarea", T_RCDATA | T_ENDS_SELECT | T_NOT_FRAMESET_OK },
	{ "title", T_RCDATA },
	{ "track", T_VOID },
	{ "tt", T_BREAKOUT },
	{ "u", T_BREAKOUT },
	{ "ul", T_BREAKOUT },
	{ "var", T_BREAKOUT },
	{ "wbr", T_VOID | T_NOT_FRAMESET_OK },
	{ "xmp", T_RAWTEXT | T_NOT_FRAMESET_OK },
};

/* A binary search that compares the first letters itself: every tag is
 * looked up. */
static unsigned
tag_flags(const char *name)
{
	size_t lo = 0, hi = sizeof tag_kinds / sizeof *tag_kinds;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *k = tag_kinds[mid].name;
		int c = (unsigned char)name[0] - (unsigned char)k[0];
		if (c == 0)
			c = strcmp(name, k);
		if (c == 0)
			return tag_kinds[mid].flags;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

static bool
equal_ci(const char *a, const char *b)
{
	return a && strcasecmp(a, b) == 0;
}

static const char *
name_of(const struct htmltok *t, const struct open_element *e)
{
	return t->names + e->name;
}

/* The tag just read, as an element of namespace ns on the stack. */
static void
push(struct htmltok *t, enum ns ns)
{
	const char *name = t->buf;
	size_t n = strlen(name) + 1;
	t->stack = grow(t->stack, &t->stack_cap, t->depth + 1, sizeof *t->stack);
	t->names = grow(t->names, &t->names_cap, t->names_len + n, 1);
	struct open_element *e = &t->stack[t->depth++];
	e->ns = ns;
	e->name = t->names_len;
	memcpy(t->names + t->names_len, name, n);
	t->names_len += n;
	const char *encoding = attribute(t, "encoding");
	e->integration = (ns == NS_SVG && (strcmp(name, "foreignobject") == 0 ||
	    strcmp(name, "desc") == 0 || strcmp(name, "title") == 0)) ||
	    (ns == NS_MATH && strcmp(name, "annotation-xml") == 0 &&
	    (equal_ci(encoding, "text/html") ||
	    equal_ci(encoding, "application/xhtml+xml")));
	e->text_integration = ns == NS_MATH && (strcmp(name, "mi") == 0 ||
	    strcmp(name, "mo") == 0 || strcmp(name, "mn") == 0 ||
	    strcmp(name, "ms") == 0 || strcmp(name, "mtext") == 0);
}

static void
pop_to(struct htmltok *t, size_t depth)
{
	if (depth < t->depth) {
		t->depth = depth;
		t->names_len = t->stack[depth].name;
	}
}

/* Pops the foreign elements that are no integration point off the top. */
static void
pop_foreign(struct htmltok *t)
{
	while (in_foreign_content(t) && !t->stack[t->depth - 1].integration &&
	    !t->stack[t->depth - 1].text_integration)
		pop_to(t, t->depth - 1);
}

static void
emit(struct htmltok *t)
{
	t->atts = grow(t->atts, &t->atts_cap, 2 * t->nattrs + 1, sizeof *t->atts);
	for (size_t i = 0; i < t->nattrs; i++) {
		const char *a = t->buf + t->attr_at[i];
		t->atts[2 * i] = a;
		t->atts[2 * i + 1] = a + strlen(a) + 1;
	}
	t->atts[2 * t->nattrs] = NULL;
	t->fn(t->arg, t->buf, t->atts);
}

static enum text_state
text_state_of(unsigned flags)
{
	return flags & T_RCDATA ? TEXT_RCDATA : flags & T_RAWTEXT ? TEXT_RAWTEXT :
	    flags & T_SCRIPT ? TEXT_SCRIPT : flags & T_PLAINTEXT ? TEXT_PLAINTEXT :
	    TEXT_DATA;
}

/* A start tag by the rules of the insertion modes in HTML content. */
static enum text_state
html_start_tag(struct htmltok *t, unsigned f)
{
	if (t->in_frameset) {
		if (t->framesets_open && (f & (T_FRAME | T_FRAMESET)))
			emit(t);
		if (t->framesets_open && (f & T_FRAMESET))
			t->framesets_open++;
		return f & T_NOFRAMES ? TEXT_RAWTEXT : TEXT_DATA;
	}
	if (t->in_select) {
		if (f & T_SELECT) {
			t->in_select = false;
			return TEXT_DATA;
		}
		if (!(f & T_ENDS_SELECT)) {
			if (!(f & T_IN_SELECT))
				return TEXT_DATA;
			emit(t);
			return f & T_SCRIPT ? TEXT_SCRIPT : TEXT_DATA;
		}
		t->in_select = false;
	}
	if ((f & T_FRAME) || ((f & T_FORM) && t->form_open))
		return TEXT_DATA;
	if (f & T_FRAMESET) {
		if (t->frameset_ok) {
			t->in_frameset = true;
			t->framesets_open = 1;
			pop_to(t, 0);
			emit(t);
		}
		return TEXT_DATA;
	}
	if ((f & T_NOT_FRAMESET_OK) ||
	    ((f & T_INPUT) && !equal_ci(attribute(t, "type"), "hidden")))
		t->frameset_ok = false;
	t->form_open |= (f & T_FORM) != 0;
	t->in_select |= (f & T_SELECT) != 0;
	emit(t);
	if (f & (T_SVG | T_MATH)) {
		if (!t->self_closing)
			push(t, f & T_SVG ? NS_SVG : NS_MATH);
		return TEXT_DATA;
	}
	if (t->depth && !(f & T_VOID))
		push(t, NS_HTML);
	return text_state_of(f);
}

/* The tree construction dispatcher for a start tag. */
static enum text_state
start_tag(struct htmltok *t)
{
	unsigned f = tag_flags(t->buf);
	if (in_foreign_content(t)) {
		const struct open_element *top = &t->stack[t->depth - 1];
		if (!top->integration && !(top->text_integration && !(f & T_MGLYPH)) &&
		    !(top->ns == NS_MATH && (f & T_SVG) &&
		    strcmp(name_of(t, top), "annotation-xml") == 0)) {
			if (!(f & T_BREAKOUT) && !((f & T_FONT) &&
			    (attribute(t, "color") || attribute(t, "face") ||
			    attribute(t, "size")))) {
				push(t, top->ns);
				if (t->self_closing)
					pop_to(t, t->depth - 1);
				return TEXT_DATA;
			}
			pop_foreign(t);
		}
	}
	return html_start_tag(t, f);
}

/* An end tag by the rules of the insertion modes.  Inside foreign
 * content it pops to the HTML element of its name that is in scope; one
 * not found there is taken for an ancestor of the outermost svg or math
 * element, which it closes (a full tree builder would ignore a stray end
 * tag instead). */
static void
html_end_tag(struct htmltok *t)
{
	const char *name = t->buf;
	if (t->in_frameset) {
		if (t->framesets_open && strcmp(name, "frameset") == 0)
			t->framesets_open--;
		return;
	}
	if (t->in_select) {
		if (strcmp(name, "select") == 0)
			t->in_select = false;
		return;
	}
	if (strcmp(name, "form") == 0)
		t->form_open = false;
	else if (strcmp(name, "br") == 0)
		t->frameset_ok = false;
	for (size_t i = t->depth; i-- > 0;) {
		const struct open_element *e = &t->stack[i];
		if (e->ns == NS_HTML && strcmp(name_of(t, e), name) == 0) {
			pop_to(t, i);
			return;
		}
		if (e->integration || e->text_integration)
			return;
	}
	pop_to(t, 0);
}

/* The tree construction dispatcher for an end tag. */
static void
end_tag(struct htmltok *t)
{
	const char *name = t->buf;
	if (in_foreign_content(t)) {
		if (strcmp(name, "br") == 0 || strcmp(name, "p") == 0) {
			pop_foreign(t);
		} else {
			for (size_t i = t->depth; i-- > 0 && t->stack[i].ns != NS_HTML;)
				if (strcmp(name_of(t, &t->stack[i]), name) == 0) {
					pop_to(t, i);
					return;
				}
		}
	}
	html_end_tag(t);
}

/* ---- The data state ---- */

/* Text in the data state: a character other than white space (or U+0000,
 * which is dropped) makes a later frameset ignored. */
static void
text(struct htmltok *t, const unsigned char *p, const unsigned char *end)
{
	for (; p < end && t->frameset_ok; p++)
		if (!is_space(*p) && *p)
			t->frameset_ok = false;
}

/* The tag open state, t->p after the '<'; false at the end of input. */
static bool
tag_open(struct htmltok *t)
{
	unsigned char c = *t->p;
	if (is_alpha(c)) {
		if (!read_tag(t))
			return false;
		switch (start_tag(t)) {
		case TEXT_DATA:
			break;
		case TEXT_RCDATA:
		case TEXT_RAWTEXT:
			skip_raw_text(t, t->buf);
			break;
		case TEXT_SCRIPT:
			skip_script(t);
			break;
		case TEXT_PLAINTEXT:
			return false;
		}
	} else if (c == '/') {
		if (++t->p == t->end)
			return false;
		if (is_alpha(*t->p)) {
			if (!read_tag(t))
				return false;
			end_tag(t);
		} else {
			/* "</>" is nothing, anything else a bogus comment. */
			skip_past(t, t->p, ">");
		}
	} else if (c == '!') {
		markup_declaration(t);
	} else if (c == '?') {
		skip_past(t, t->p, ">");
	} else {
		text(t, t->p - 1, t->p);
	}
	return true;
}

void
htmltok_parse(struct htmltok *tok, const unsigned char *html, size_t len,
    htmltok_element_fn *fn, void *arg)
{
	struct htmltok *t = tok;
	t->p = html;
	t->end = html + len;
	t->fn = fn;
	t->arg = arg;
	pop_to(t, 0);
	t->form_open = t->in_select = t->in_frameset = false;
	t->framesets_open = 0;
	t->frameset_ok = true;
	while (t->p < t->end) {
		const unsigned char *lt = memchr(t->p, '<', (size_t)(t->end - t->p));
		text(t, t->p, lt ? lt : t->end);
		if (!lt || lt + 1 == t->end)
			break;
		t->p = lt + 1;
		if (!tag_open(t))
			break;
	}
}
