/* UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, no code
 * points past U+10FFFF.  One check for the TSV reader, the fetcher's
 * URL lists and the repair of HTML pages before libxml2 reads them. */
#ifndef WA_UTF8_H
#define WA_UTF8_H
#include <stddef.h>

/* The length of the valid sequence at p, 0 if there is none; *part gets
 * the bytes of its maximal valid start, which the WHATWG decoder replaces
 * by one U+FFFD. */
static inline size_t
utf8_sequence(const unsigned char *p, const unsigned char *end, size_t *part)
{
	unsigned char c = *p, lo = 0x80, hi = 0xbf;
	size_t need;
	*part = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if (p + i >= end || p[i] < lo || p[i] > hi)
			return 0;
		*part = i + 1;
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* The offset of the first byte of s[0..n) that starts no valid sequence,
 * or -1. */
static inline long
utf8_invalid_at(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len, part;
	while (p < end) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		if (!(len = utf8_sequence(p, end, &part)))
			return (long)(p - (const unsigned char *)s);
		p += len;
	}
	return -1;
}

#endif
