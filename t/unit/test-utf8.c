/* The UTF-8 check of src/lib/utf8.h: the boundaries of RFC 3629 by hand
 * (the last overlong form and the first valid one of each length,
 * surrogates, U+10FFFF and past it, truncated sequences), the length of
 * the maximal valid start that one U+FFFD replaces, then 2*10^5 random
 * strings of bytes chosen to hit those boundaries, checked against glibc's
 * iconv, an independent decoder: valid when iconv converts the whole
 * string, else invalid at the byte where iconv stopped. */
#include <errno.h>
#include <iconv.h>
#include <stdint.h>

#include "tap.h"
#include "utf8.h"

static long
check(const char *s)
{
	return utf8_invalid_at(s, strlen(s));
}

static void
test_boundaries(void)
{
	ok(check("") == -1 && check("http://a.test/") == -1, "ASCII is valid");
	ok(check("\xc2\x80") == -1 && check("\xdf\xbf") == -1, "U+0080 and U+07FF");
	ok(check("\xc0\x80") == 0 && check("\xc1\xbf") == 0, "two-byte overlong forms");
	ok(check("\xe0\xa0\x80") == -1 && check("\xe0\x9f\xbf") == 0,
	    "U+0800, and the overlong form of U+07FF");
	ok(check("\xed\x9f\xbf") == -1 && check("\xed\xa0\x80") == 0 && check("\xed\xbf\xbf") == 0 &&
	    check("\xee\x80\x80") == -1, "U+D7FF, the surrogates U+D800 and U+DFFF, U+E000");
	ok(check("\xf0\x90\x80\x80") == -1 && check("\xf0\x8f\xbf\xbf") == 0,
	    "U+10000, and the overlong form of U+FFFF");
	ok(check("\xf4\x8f\xbf\xbf") == -1 && check("\xf4\x90\x80\x80") == 0 &&
	    check("\xf5\x80\x80\x80") == 0, "U+10FFFF, and past it");
	ok(check("\x80") == 0 && check("\xbf") == 0 && check("\xfe") == 0 && check("\xff") == 0,
	    "continuation bytes and FE, FF alone");
	ok(check("ab\xe2\x82") == 2 && check("ab\xe2\x82\xac") == -1 && check("a\xe2\x82" "b") == 1,
	    "a truncated sequence at the end and before an ASCII byte");

	const unsigned char bad[] = "\xf0\x9f\x98" "x";
	size_t part;
	ok(utf8_sequence(bad, bad + 4, &part) == 0 && part == 3,
	    "F0 9F 98 then x: invalid, its valid start 3 bytes (one U+FFFD)");
	const unsigned char euro[] = "\xe2\x82\xac";
	ok(utf8_sequence(euro, euro + 3, &part) == 3 && part == 3, "E2 82 AC: 3 bytes");
	const unsigned char lone[] = "\xe0\x80";
	ok(utf8_sequence(lone, lone + 2, &part) == 0 && part == 1,
	    "E0 80: invalid at once, one byte replaced");
}

/* A byte near a boundary of the encoding. */
static unsigned char
pick(uint64_t *state)
{
	static const unsigned char bytes[] = { 'a', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
		0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3,
		0xf4, 0xf5, 0xf8, 0xfe, 0xff };
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return bytes[(*state >> 33) % sizeof bytes];
}

static void
test_against_iconv(void)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	if (cd == (iconv_t)-1) {
		ok(false, "iconv_open UTF-8 to UTF-32LE");
		return;
	}
	uint64_t state = 1;
	unsigned tried = 0, disagree = 0, valid = 0;
	for (; tried < 200000; tried++) {
		char s[8], out[64];
		size_t len = 1 + (state >> 40) % 7;
		for (size_t i = 0; i < len; i++)
			s[i] = (char)pick(&state);
		char *in = s, *o = out;
		size_t inleft = len, outleft = sizeof out;
		iconv(cd, NULL, NULL, NULL, NULL);
		size_t r = iconv(cd, &in, &inleft, &o, &outleft);
		long want = r == (size_t)-1 ? (long)(in - s) : -1;
		long got = utf8_invalid_at(s, len);
		valid += want == -1;
		if (got != want && disagree++ < 5) {
			printf("# bytes");
			for (size_t i = 0; i < len; i++)
				printf(" %02x", (unsigned char)s[i]);
			printf(": iconv %ld (errno %d), ours %ld\n", want, errno, got);
		}
	}
	iconv_close(cd);
	ok(disagree == 0 && valid > 1000 && valid < tried - 1000,
	    "%u random strings (%u valid): the first invalid byte as iconv finds it", tried, valid);
}

int
main(void)
{
	test_boundaries();
	test_against_iconv();
	return done_testing();
}
