/* The parts of a canonical URL (urlparts.h). */
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "msg.h"
#include "urlparts.h"

bool
url_is_ipv4(const char *h, size_t n)
{
	unsigned labels = 0;
	for (const char *p = h; p < h + n; p++) {
		unsigned v = 0, digits = 0;
		for (; p < h + n && is_digit(*p); p++, digits++)
			v = v * 10 + (unsigned)(*p - '0');
		if (digits == 0 || digits > 3 || v > 255 || (digits > 1 && *(p - digits) == '0'))
			return false;
		labels++;
		if (p < h + n && *p != '.')
			return false;
	}
	return labels == 4;
}

const char *
url_after_scheme(const char *s)
{
	/* Byte by byte, not by calls of strncmp: every URL of a stream
	 * comes here. */
	if (s[0] != 'h' || s[1] != 't' || s[2] != 't' || s[3] != 'p')
		return NULL;
	size_t n = 4 + (s[4] == 's');
	return s[n] == ':' && s[n + 1] == '/' && s[n + 2] == '/' ? s + n + 3 : NULL;
}

const char *
url_split(const char *url, const char **host, const char **host_end)
{
	const char *h = url_after_scheme(url);
	if (!h)
		return NULL;
	const char *e = h[0] == '[' ? strchr(h, ']') : h + strcspn(h, ":/");
	if (!e)
		return NULL;
	e += h[0] == '[';
	if (e == h)
		return NULL;
	const char *path = strchr(e, '/');
	if (!path || (path != e && *e != ':'))
		return NULL;
	*host = h;
	*host_end = e;
	return path;
}

bool
url_is_ip(const char *h, size_t n)
{
	return h[0] == '[' || url_is_ipv4(h, n);
}

/* The labels of [h, e), separated by from, in reverse order and joined by
 * to; returns the end (not terminated). */
static char *
reverse_labels(const char *h, const char *e, char from, char to, char *d)
{
	for (const char *label_end = e; label_end > h;) {
		const char *label = label_end;
		while (label > h && label[-1] != from)
			label--;
		memcpy(d, label, (size_t)(label_end - label));
		d += label_end - label;
		*d++ = to;
		label_end = label - (label > h);
	}
	return d - 1;
}

char *
url_reversed_labels(const char *h, const char *e, char *d)
{
	return reverse_labels(h, e, '.', ',', d);
}

bool
url_surt(const char *url, char *out)
{
	const char *h, *e, *path = url_split(url, &h, &e);
	if (!path)
		return false;
	char *d = out;
	if (url_is_ip(h, (size_t)(e - h))) {
		memcpy(d, h, (size_t)(e - h));
		d += e - h;
	} else {
		d = url_reversed_labels(h, e, d);
	}
	*d++ = ')';
	strcpy(d, e);	/* ":PORT", path and query */
	return true;
}

size_t
url_from_surt(const char *key, bool https, char *out)
{
	const char *e = strchr(key, ')');
	if (!e || e == key)
		return 0;
	char *d = out + (https ? 8 : 7);
	memcpy(out, https ? "https://" : "http://", (size_t)(d - out));
	if (url_is_ip(key, (size_t)(e - key))) {
		memcpy(d, key, (size_t)(e - key));
		d += e - key;
	} else {
		d = reverse_labels(key, e, ',', '.', d);
	}
	size_t rest = strlen(e + 1);
	memcpy(d, e + 1, rest + 1);
	return (size_t)(d - out) + rest;
}

int
url_surt_cmp(const char *key_a, const char *url_a, const char *key_b, const char *url_b)
{
	int c = strcmp(key_a, key_b);
	return c ? c : strcmp(url_a, url_b);
}

bool
url_host(const char *url, char *out)
{
	const char *h, *e;
	if (!url_split(url, &h, &e))
		return false;
	memcpy(out, h, (size_t)(e - h));
	out[e - h] = '\0';
	return true;
}

char *
url_origin(const char *url)
{
	const char *h, *e, *path = url_split(url, &h, &e);
	return wa_strndup(url, path ? (size_t)(path - url) : strlen(url));
}

const char *
url_path(const char *url)
{
	const char *h, *e, *path = url_split(url, &h, &e);
	return path ? path : "/";
}
