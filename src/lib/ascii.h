/* ASCII character classes and case, whatever the locale (ctype.h's
 * answers depend on it, and a URL or a robots.txt key is ASCII). */
#ifndef WA_ASCII_H
#define WA_ASCII_H
#include <stdbool.h>

static inline bool
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline unsigned
hex_value(unsigned char c)
{
	return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

static inline unsigned char
lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
}

static inline unsigned char
upper(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? c & ~0x20 : c;
}
#endif
