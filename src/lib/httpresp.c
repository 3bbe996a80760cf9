/* HTTP responses in WARC records (httpresp.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decoded.h"
#include "httpresp.h"
#include "msg.h"

/* The end of the line at p (before CR LF or LF), or NULL if none. */
static const unsigned char *
line_end(const unsigned char *p, const unsigned char *end, const unsigned char **next)
{
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return NULL;
	*next = nl + 1;
	return nl > p && nl[-1] == '\r' ? nl - 1 : nl;
}

/* Copies the value [v, e) without its surrounding blanks; false, with ""
 * in out, if it does not fit. */
static bool
copy_trimmed(char *out, size_t size, const unsigned char *v, const unsigned char *e)
{
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	size_t n = (size_t)(e - v);
	if (n >= size) {
		*out = '\0';
		return false;
	}
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

static void
lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

void
http_content_type(const char *value, char *media, size_t media_size,
    char *charset, size_t charset_size)
{
	const char *p = value;
	size_t n = strcspn(p, ";");
	copy_trimmed(media, media_size, (const unsigned char *)p,
	    (const unsigned char *)p + n);
	lower(media);
	*charset = '\0';
	for (p += n; *p == ';';) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t name = strcspn(p, "=;");
		bool is_charset = name == 7 && strncasecmp(p, "charset", 7) == 0;
		p += name;
		if (*p != '=')
			continue;
		p++;
		const char *v = p, *e;
		if (*p == '"') {
			v = ++p;
			e = strchr(p, '"');
			if (!e)
				e = p + strlen(p);
			p = *e ? e + 1 : e;
			p += strcspn(p, ";");
		} else {
			p += strcspn(p, ";");
			e = p;
		}
		if (is_charset)
			copy_trimmed(charset, charset_size, (const unsigned char *)v,
			    (const unsigned char *)e);
	}
}

bool
http_parse_response(const unsigned char *block, size_t len,
    struct http_response *r, const char **why)
{
	const unsigned char *p = block, *end = block + len, *next, *e;
	memset(r, 0, sizeof *r);
	if (!(e = line_end(p, end, &next)) || e - p < 12 ||
	    memcmp(p, "HTTP/", 5) != 0) {
		*why = "no HTTP status line";
		return false;
	}
	const unsigned char *sp = memchr(p, ' ', (size_t)(e - p));
	if (!sp || e - sp < 4 || !isdigit(sp[1]) || !isdigit(sp[2]) ||
	    !isdigit(sp[3]) || (e - sp > 4 && sp[4] != ' ') || sp[1] == '0') {
		*why = "bad HTTP status line";
		return false;
	}
	r->status = (sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0');
	for (p = next;;) {
		if (!(e = line_end(p, end, &next))) {
			*why = "HTTP header not terminated";
			return false;
		}
		if (e == p)
			break;
		const unsigned char *colon = memchr(p, ':', (size_t)(e - p));
		/* A folded line (obs-fold) continues a field none of ours
		 * needs; a line without a colon is ignored, as browsers do. */
		if (colon && *p != ' ' && *p != '\t') {
			size_t n = (size_t)(colon - p);
			const unsigned char *v = colon + 1;
			char tmp[256];
			if (n == 12 && strncasecmp((const char *)p, "content-type", 12) == 0) {
				copy_trimmed(tmp, sizeof tmp, v, e);
				http_content_type(tmp, r->media_type, sizeof r->media_type,
				    r->charset, sizeof r->charset);
			} else if (n == 16 && strncasecmp((const char *)p,
			    "content-encoding", 16) == 0) {
				copy_trimmed(r->content_encoding,
				    sizeof r->content_encoding, v, e);
				lower(r->content_encoding);
			} else if (n == 17 && strncasecmp((const char *)p,
			    "transfer-encoding", 17) == 0) {
				copy_trimmed(tmp, sizeof tmp, v, e);
				lower(tmp);
				size_t tl = strlen(tmp);
				r->chunked = tl >= 7 && strcmp(tmp + tl - 7, "chunked") == 0;
			} else if (n == 8 && strncasecmp((const char *)p, "location", 8) == 0) {
				r->location_too_long = !copy_trimmed(r->location,
				    sizeof r->location, v, e);
			}
		}
		p = next;
	}
	r->body = next;
	r->body_len = (size_t)(end - next);
	return true;
}

void
http_each_field(const unsigned char *block, const struct http_response *r,
    const char *name, void (*fn)(void *arg, const char *value, size_t len),
    void *arg)
{
	const unsigned char *p = block, *end = r->body, *next, *e;
	size_t n = strlen(name);
	if (!line_end(p, end, &next))
		return;
	for (p = next; (e = line_end(p, end, &next)) && e != p; p = next) {
		const unsigned char *v = p + n;
		if ((size_t)(e - p) <= n || *v != ':' ||
		    strncasecmp((const char *)p, name, n) != 0)
			continue;
		for (v++; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		const unsigned char *ve = e;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		fn(arg, (const char *)v, (size_t)(ve - v));
	}
}

struct buf {
	unsigned char **data;
	size_t *cap, len;
};

static void
reserve(struct buf *b, size_t n)
{
	if (b->len + n <= *b->cap)
		return;
	size_t cap = *b->cap ? *b->cap : 65536;
	while (cap < b->len + n)
		cap *= 2;
	*b->data = wa_realloc(*b->data, cap);
	*b->cap = cap;
}

/* Undoes the chunked framing; false if it is broken. */
static bool
dechunk(const unsigned char *p, size_t len, struct buf *out)
{
	const unsigned char *end = p + len, *next, *e;
	for (;;) {
		if (!(e = line_end(p, end, &next)))
			return false;
		char *stop;
		char hex[20];
		size_t n = (size_t)(e - p) < sizeof hex ? (size_t)(e - p) : sizeof hex - 1;
		memcpy(hex, p, n);
		hex[n] = '\0';
		unsigned long long size = strtoull(hex, &stop, 16);
		if (stop == hex || (*stop && *stop != ';' && *stop != ' '))
			return false;
		if (size == 0)
			return true;
		if (size > (size_t)(end - next))
			return false;
		reserve(out, size);
		memcpy(*out->data + out->len, next, size);
		out->len += size;
		p = next + size;
		if (p < end && *p == '\r')
			p++;
		if (p < end && *p == '\n')
			p++;
	}
}

/* Decodes in into out by one content coding, at most max bytes. */
static bool
decode_into(const char *coding, const unsigned char *in, size_t len, uint64_t max,
    struct buf *out, const char **why)
{
	struct decoded d;
	if (!decoded_supported(coding)) {
		*why = "unsupported Content-Encoding";
		return false;
	}
	decoded_init(&d, coding, out->data, out->cap);
	bool within = decoded_feed(&d, in, len, max);
	bool complete = decoded_complete(&d);
	out->len = (size_t)d.bytes;
	decoded_end(&d);
	if (!within)
		*why = "decoded body larger than the limit";
	else if (d.failed)
		*why = "corrupt compressed body";
	else if (!complete)
		*why = "compressed body truncated";
	return within && complete;
}

bool
http_decode_body(const struct http_response *r, uint64_t max,
    unsigned char **out, size_t *cap, size_t *out_len, const char **why)
{
	/* The framing and codings are undone one after the other, from the
	 * last applied, each from one buffer into the other. */
	unsigned char *other = NULL;
	size_t other_cap = 0;
	struct buf bufs[2] = { { out, cap, 0 }, { &other, &other_cap, 0 } };
	int in = -1;	/* which buffer data is in; -1 the record itself */
	const unsigned char *data = r->body;
	size_t len = r->body_len;
	bool ok = true;

	if (r->chunked && dechunk(data, len, &bufs[0])) {
		in = 0;
		data = *out;
		len = bufs[0].len;
	}
	/* Else the writer stored the body without the framing after all, as
	 * WARC 1.1 sec. 6.3.2 recommends. */
	char codings[sizeof r->content_encoding];
	strcpy(codings, r->content_encoding);
	for (;;) {
		char *last = strrchr(codings, ',');
		char *name = last ? last + 1 : codings;
		while (*name == ' ' || *name == '\t')
			name++;
		size_t n = strlen(name);
		while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
			name[--n] = '\0';
		if (*name && strcmp(name, "identity") != 0) {
			struct buf *to = &bufs[in == 0];
			ok = decode_into(name, data, len, max, to, why);
			if (!ok)
				break;
			in = in == 0;
			data = *to->data;
			len = to->len;
		}
		if (!last)
			break;
		*last = '\0';
	}
	if (ok && len > max) {
		*why = "body larger than the limit";
		ok = false;
	}
	if (ok) {
		if (in != 0) {
			bufs[0].len = 0;
			reserve(&bufs[0], len + 1);
			memcpy(*out, data, len);
		}
		*out_len = len;
	}
	free(other);
	return ok;
}
