/* Canonical URLs (url.h).
 *
 * The work is split between us and libcurl.  We trim the input, cut the
 * fragment, tell the scheme and the authority apart, clean the host
 * (userinfo, percent-decoding, IDN, case, trailing dot, the form of an
 * IPv6 address) and the port,
 * normalise the percent-encoding of path and query and merge relative
 * references with their base; libcurl then checks the host, writes IPv4
 * addresses in dotted decimal and removes dot-segments.  libcurl never
 * sees a byte that needs encoding, so its own encoder (which writes a
 * space in a query as '+') never runs. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <idn2.h>
#include <unictype.h>
#include <unistr.h>
#include <libpsl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "msg.h"
#include "url.h"

/* The scheme, the authority, the port and three times a path and query
 * whose every byte was percent-encoded. */
#define WORK_SIZE (4 * URL_MAX + 64)

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t handle_key;

static pthread_mutex_t psl_lock = PTHREAD_MUTEX_INITIALIZER;
static psl_ctx_t *psl;

static const char too_long[] = "URL longer than 8192 bytes";

static bool
fail(const char **why, const char *reason)
{
	*why = reason;
	return false;
}

static bool
is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* What may stand unencoded in a path or a query: RFC 3986 pchar, '/'
 * and '?', and the brackets, which browsers send as they are. */
static bool
is_pq_char(unsigned char c)
{
	return is_unreserved(c) || (c && strchr("!$&'()*+,;=:@/?[]", c));
}

static void
free_handle(void *cu)
{
	curl_url_cleanup(cu);
}

static void
make_key(void)
{
	if (pthread_key_create(&handle_key, free_handle) != 0)
		wa_die("cannot create a thread key for URL handles");
}

static CURLU *
handle(void)
{
	pthread_once(&key_once, make_key);
	CURLU *cu = pthread_getspecific(handle_key);
	if (!cu) {
		if (!(cu = curl_url()))
			wa_die("out of memory");
		if (pthread_setspecific(handle_key, cu) != 0)
			wa_die("cannot keep a URL handle");
	}
	return cu;
}

void
url_cleanup(void)
{
	pthread_once(&key_once, make_key);
	curl_url_cleanup(pthread_getspecific(handle_key));
	pthread_setspecific(handle_key, NULL);
	pthread_mutex_lock(&psl_lock);
	psl_free(psl);	/* a no-op for the built-in list */
	psl = NULL;
	pthread_mutex_unlock(&psl_lock);
}

static bool
curl_failed(CURLUcode rc, const char **why)
{
	switch (rc) {
	case CURLUE_OUT_OF_MEMORY:
		wa_die("out of memory");
	case CURLUE_BAD_HOSTNAME:
	case CURLUE_BAD_IPV6:
		*why = "bad host";
		break;
	case CURLUE_NO_HOST:
		*why = "no host";
		break;
	case CURLUE_BAD_PORT_NUMBER:
		*why = "bad port";
		break;
	case CURLUE_UNSUPPORTED_SCHEME:
	case CURLUE_BAD_SCHEME:
		*why = "unsupported scheme";
		break;
	default:
		*why = "malformed URL";
		break;
	}
	return false;
}

/* Copies in to buf as a browser takes an href: C0 controls and spaces
 * trimmed, tabs and line ends dropped, the fragment cut. */
static bool
clean_input(const char *in, char *buf, const char **why)
{
	const unsigned char *s = (const unsigned char *)in, *e;
	while (*s && *s <= ' ')
		s++;
	for (e = s + strlen((const char *)s); e > s && e[-1] <= ' '; e--)
		;
	size_t n = 0;
	for (; s < e && *s != '#'; s++) {
		if (*s == '\t' || *s == '\r' || *s == '\n')
			continue;
		if (n == URL_MAX)
			return fail(why, too_long);
		buf[n++] = (char)*s;
	}
	buf[n] = '\0';
	return true;
}

/* The length of the scheme that s starts with, 0 if none. */
static size_t
scheme_length(const char *s)
{
	size_t i = 0;
	if (!is_alpha(s[0]))
		return 0;
	while (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return s[i] == ':' ? i : 0;
}

size_t
url_norm_percent(const char *s, size_t n, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	char *d = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
			unsigned char v = (unsigned char)(hex_value(s[i + 1]) << 4 | hex_value(s[i + 2]));
			if (is_unreserved(v)) {
				*d++ = (char)v;
			} else {
				*d++ = '%';
				*d++ = (char)upper(s[i + 1]);
				*d++ = (char)upper(s[i + 2]);
			}
			i += 2;
		} else if (c != '%' && is_pq_char(c)) {
			*d++ = (char)c;
		} else {
			*d++ = '%';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 15];
		}
	}
	*d = '\0';
	return (size_t)(d - out);
}

/* Replaces the host name (URL_BUFSIZE bytes) by its ASCII form after
 * UTS #46 non-transitional processing, with IDNA2008's validity (libidn2:
 * symbols and emoji are refused).  False if libidn2 refuses it. */
static bool
to_ascii(char *name, size_t *len)
{
	char *ace;
	int rc = idn2_to_ascii_8z(name, &ace, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
	if (rc == IDN2_MALLOC)
		wa_die("out of memory");
	if (rc != IDN2_OK)
		return false;
	size_t n = strlen(ace);
	bool fits = n <= URL_MAX;
	if (fits) {
		memcpy(name, ace, n + 1);
		*len = n;
	}
	idn2_free(ace);
	return fits;
}

static bool
has_a_label(const char *name)
{
	for (const char *p = name;; p++) {
		if (strncmp(p, "xn--", 4) == 0)
			return true;
		if (!(p = strchr(p, '.')))
			return false;
	}
}

/* The bidi rule of RFC 5893 sec. 2 for the label s[0..n). */
static bool
bidi_label_valid(const uint8_t *s, size_t n)
{
	ucs4_t c;
	int len = u8_mbtouc(&c, s, n), first = uc_bidi_class(c), last = first;
	bool rtl = first == UC_BIDI_R || first == UC_BIDI_AL, en = false, an = false;
	if (!rtl && first != UC_BIDI_L)
		return false;
	for (size_t i = 0; i < n; i += (size_t)len) {
		len = u8_mbtouc(&c, s + i, n - i);
		int k = uc_bidi_class(c);
		en |= k == UC_BIDI_EN;
		an |= k == UC_BIDI_AN;
		bool common = k == UC_BIDI_EN || k == UC_BIDI_ES || k == UC_BIDI_CS ||
		    k == UC_BIDI_ET || k == UC_BIDI_ON || k == UC_BIDI_BN || k == UC_BIDI_NSM;
		bool allowed = common || (rtl ? k == UC_BIDI_R || k == UC_BIDI_AL ||
		    k == UC_BIDI_AN : k == UC_BIDI_L);
		if (!allowed)
			return false;
		if (k != UC_BIDI_NSM)
			last = k;
	}
	if (rtl)
		return !(en && an) && (last == UC_BIDI_R || last == UC_BIDI_AL ||
		    last == UC_BIDI_EN || last == UC_BIDI_AN);
	return last == UC_BIDI_L || last == UC_BIDI_EN;
}

/* UTS #46 checks the bidi rule in every label of a name that has a
 * right-to-left character anywhere; libidn2 checks it only in the labels
 * that have one, which would let "0a.\u05d0" through. */
static bool
bidi_name_valid(const char *name)
{
	const uint8_t *s = (const uint8_t *)name;
	size_t n = strlen(name);
	bool bidi = false;
	ucs4_t c;
	for (size_t i = 0; i < n && !bidi; i += (size_t)u8_mbtouc(&c, s + i, n - i)) {
		u8_mbtouc(&c, s + i, n - i);
		int k = uc_bidi_class(c);
		bidi = k == UC_BIDI_R || k == UC_BIDI_AL || k == UC_BIDI_AN;
	}
	for (size_t i = 0; bidi && i < n;) {
		size_t label = strcspn(name + i, ".");
		if (!bidi_label_valid(s + i, label))
			return false;
		i += label + 1;
	}
	return true;
}

/* Whether the A-labels of the ASCII host name decode to U-labels that
 * encode to them again: an A-label stands for its U-label, so one whose
 * U-label would be refused (a symbol, a broken bidi rule, a code point
 * that maps to another) or that is no Punycode at all is refused too;
 * and so is a name that breaks the bidi rule across its labels. */
static bool
a_labels_valid(const char *name)
{
	char *u, buf[URL_BUFSIZE];
	int rc = idn2_to_unicode_8z8z(name, &u, 0);
	if (rc == IDN2_MALLOC)
		wa_die("out of memory");
	if (rc != IDN2_OK)
		return false;
	size_t n = strlen(u);
	bool fits = n <= URL_MAX;
	if (fits)
		memcpy(buf, u, n + 1);
	idn2_free(u);
	return fits && bidi_name_valid(buf) && to_ascii(buf, &n) && strcmp(buf, name) == 0;
}

/* Cleans the registered name h[0..n) into out: percent-decoded, lower
 * case, IDN labels to punycode, one trailing dot dropped. */
static bool
reg_name(const char *h, size_t n, char *out, const char **why)
{
	char name[URL_BUFSIZE];
	size_t len = 0;
	bool ascii = true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];
		if (c == '%') {
			if (i + 2 >= n || !is_hex(h[i + 1]) || !is_hex(h[i + 2]))
				return fail(why, "bad host");
			c = (unsigned char)(hex_value(h[i + 1]) << 4 | hex_value(h[i + 2]));
			i += 2;
		}
		if (c <= ' ' || c == 0x7f)
			return fail(why, "bad host");
		ascii &= c < 0x80;
		name[len++] = (char)lower(c);
	}
	if (len && name[len - 1] == '.')
		len--;
	name[len] = '\0';
	if (!ascii && !to_ascii(name, &len))
		return fail(why, "bad host");
	if (has_a_label(name) && !a_labels_valid(name))
		return fail(why, "bad host");
	if (len == 0)
		return fail(why, "bad host");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		bool empty_label = c == '.' && (i == 0 || i == len - 1 || name[i + 1] == '.');
		if (empty_label || !is_unreserved(c))
			return fail(why, "bad host");
	}
	memcpy(out, name, len + 1);
	return true;
}

/* Writes "HOST[:PORT]" of the authority a[0..n) to out, without the
 * userinfo. */
static bool
authority(const char *a, size_t n, char *out, const char **why)
{
	const char *at = memrchr(a, '@', n), *end = a + n, *host_end;
	if (at) {
		n -= (size_t)(at + 1 - a);
		a = at + 1;
	}
	if (n == 0)
		return fail(why, "no host");
	if (a[0] == '[') {
		/* An IPv6 address, in the one form inet_ntop gives it (no
		 * zone, no IPvFuture: nothing a crawler can fetch). */
		const char *close = memchr(a, ']', n);
		char text[INET6_ADDRSTRLEN];
		unsigned char bin[16];
		if (!close || (size_t)(close - a - 1) >= sizeof text)
			return fail(why, "bad host");
		memcpy(text, a + 1, (size_t)(close - a - 1));
		text[close - a - 1] = '\0';
		if (inet_pton(AF_INET6, text, bin) != 1 ||
		    !inet_ntop(AF_INET6, bin, text, sizeof text))
			return fail(why, "bad host");
		host_end = close + 1;
		out += sprintf(out, "[%s]", text);
	} else {
		host_end = memchr(a, ':', n);
		if (!host_end)
			host_end = end;
		if (host_end == a)
			return fail(why, "no host");
		if (!reg_name(a, (size_t)(host_end - a), out, why))
			return false;
		out += strlen(out);
	}
	if (host_end < end && *host_end != ':')
		return fail(why, "bad host");
	if (host_end + 1 < end) {
		/* A port; an empty one means the default (RFC 3986 sec. 3.2.3). */
		unsigned long port = 0;
		for (const char *p = host_end + 1; p < end; p++) {
			if (!is_digit(*p) || (port = port * 10 + (unsigned)(*p - '0')) > 65535)
				return fail(why, "bad port");
		}
		if (port == 0)
			return fail(why, "bad port");
		out += sprintf(out, ":%lu", port);
	}
	*out = '\0';
	return true;
}

/* A host whose last label is a number, decimal, octal or hexadecimal
 * ("0x" and hexadecimal digits), must be an IPv4 address, as the WHATWG
 * URL standard's host parser has it ("ends in a number"); libcurl has
 * written such an address in dotted decimal by now, and a host it could
 * not read as one is refused: no top-level domain is numeric. */
static bool
numeric_host_ok(const char *h, size_t n)
{
	const char *last = h + n, *p;
	while (last > h && last[-1] != '.')
		last--;
	bool hex = h + n - last >= 2 && last[0] == '0' && last[1] == 'x';
	for (p = hex ? last + 2 : last; p < h + n; p++)
		if (hex ? !is_hex(*p) : !is_digit(*p))
			return true;
	return url_is_ipv4(h, n);
}

/* Takes the URL out of the handle. */
static bool
finish(CURLU *cu, char *out, const char **why)
{
	char *s;
	CURLUcode rc = curl_url_get(cu, CURLUPART_URL, &s, CURLU_NO_DEFAULT_PORT);
	if (rc != CURLUE_OK)
		return curl_failed(rc, why);
	const char *host = strstr(s, "://") + 3;
	bool good = host[0] == '[' || numeric_host_ok(host, strcspn(host, ":/?"));
	size_t n = strlen(s);
	if (!good)
		*why = "bad host";
	else if (n > URL_MAX)
		*why = too_long;
	else
		memcpy(out, s, n + 1);
	curl_free(s);
	return good && n <= URL_MAX;
}

/* Canonicalises the absolute URL whose lower-case scheme is scheme and
 * whose authority is auth[0..auth_len), followed by path and query. */
static bool
absolute(const char *scheme, const char *auth, size_t auth_len, const char *pq, char *out,
    const char **why)
{
	char buf[WORK_SIZE], *e;
	e = buf + sprintf(buf, "%s://", scheme);
	if (!authority(auth, auth_len, e, why))
		return false;
	url_norm_percent(pq, strlen(pq), e + strlen(e));
	CURLU *cu = handle();
	CURLUcode rc = curl_url_set(cu, CURLUPART_URL, buf, 0);
	if (rc != CURLUE_OK)
		return curl_failed(rc, why);
	return finish(cu, out, why);
}

static bool merge(const char *base, const char *ref, char *out, const char **why);

/* The part of canonicalising shared by url_canon and url_resolve: s is
 * the cleaned input; base, if not NULL, a canonical URL. */
static bool
canon(const char *s, const char *base, char *out, const char **why)
{
	size_t slen = scheme_length(s);
	char scheme[8];
	if (slen) {
		if (slen >= sizeof scheme)
			return fail(why, "unsupported scheme");
		for (size_t i = 0; i < slen; i++)
			scheme[i] = (char)lower(s[i]);
		scheme[slen] = '\0';
		if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
			return fail(why, "unsupported scheme");
		s += slen + 1;
	} else if (base) {
		/* Canonical, so the scheme is "http" or "https". */
		size_t n = (size_t)(strchr(base, ':') - base);
		memcpy(scheme, base, n);
		scheme[n] = '\0';
	} else {
		return fail(why, *s ? "no scheme" : "empty URL");
	}
	if (s[0] == '/' && s[1] == '/') {
		size_t n = strcspn(s + 2, "/?");
		return absolute(scheme, s + 2, n, s + 2 + n, out, why);
	}
	if (slen) {
		/* "http:g" has no authority, so no host (the strict reading
		 * of RFC 3986 sec. 5.4.2). */
		return fail(why, "no host");
	}
	if (!*s) {
		strcpy(out, base);
		return true;
	}
	/* A relative reference is merged as a string, not by libcurl, which
	 * lost the empty segment of a base path "//a" ("http://h//a" and "c"
	 * gave "http://h/c", not "http://h//c"; fuzz/url.c found it). */
	char merged[URL_BUFSIZE];
	return merge(base, s, merged, why) && canon(merged, NULL, out, why);
}

bool url_fast_path = true;

/* Whether the dot-segment test of the path segment [seg, end) says "." or
 * "..", which libcurl would remove. */
static bool
dot_segment(const char *seg, const char *end)
{
	return (end - seg == 1 && seg[0] == '.') ||
	    (end - seg == 2 && seg[0] == '.' && seg[1] == '.');
}

/* Whether p, after "http://" (https is false) or "https://", starts
 * with the canonical form of a port that is not the scheme's default:
 * ":" and 1 to 65535 without leading zeros.  Sets *end past it. */
static bool
canonical_port(const char *p, bool https, const char **end)
{
	if (p[0] != ':' || !(p[1] >= '1' && p[1] <= '9'))
		return false;
	unsigned long port = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		if ((port = port * 10 + (unsigned long)(*p - '0')) > 65535)
			return false;
	*end = p;
	return port != (https ? 443 : 80);
}

/* Whether the label at p is an A-label, which must be checked (reg_name). */
static bool
a_label(const char *p)
{
	return p[0] == 'x' && p[1] == 'n' && p[2] == '-' && p[3] == '-';
}

/* Whether the cleaned input s is canonical already, as most URLs of a
 * crawl are, so that canon() would return it unchanged: http or https; a
 * host of lower-case letters, digits, '-' and '.' in non-empty labels,
 * the last one neither a number nor starting with "0x"; no port or a
 * canonical one (canonical_port); a path from '/' and a query of bytes
 * that stand as they are (no '%', no brackets), no dot-segment, no empty
 * query.  It saves libcurl's parse on the way to the same string;
 * t/unit/test-url.c and fuzz/url.c check the two ways agree. */
static bool
already_canonical(const char *s)
{
	const char *p = url_after_scheme(s);
	if (!p)
		return false;
	const char *label = p;
	bool number = true;
	if (a_label(label))
		return false;
	for (;; p++) {
		char c = *p;
		if ((c >= 'a' && c <= 'z') || c == '-') {
			number = false;
		} else if (c == '.' && p > label) {
			label = p + 1;
			number = true;
			if (a_label(label))
				return false;
		} else if (!(c >= '0' && c <= '9')) {
			break;
		}
	}
	/* A last label "0x..." may be a hexadecimal number, which makes the
	 * host an IPv4 address ("0x7" is 0.0.0.7): libcurl tells. */
	if (p == label || number || (label[0] == '0' && label[1] == 'x'))
		return false;
	if (*p == ':' && !canonical_port(p, s[4] == 's', &p))
		return false;
	if (*p != '/')
		return false;
	const char *seg = p + 1;
	for (p++;; p++) {
		unsigned char c = (unsigned char)*p;
		/* Most bytes of a path; they stand as they are. */
		if (is_alpha(c) || is_digit(c))
			continue;
		if (c == '/' || c == '?' || c == '\0') {
			if (dot_segment(seg, p))
				return false;
			if (c != '/')
				break;
			seg = p + 1;
		} else if (c == '%' || c == '[' || c == ']' || !is_pq_char(c)) {
			return false;
		}
	}
	if (*p == '?') {
		if (p[1] == '\0')
			return false;
		for (p++; *p; p++)
			if (*p == '%' || *p == '[' || *p == ']' || !is_pq_char((unsigned char)*p))
				return false;
	}
	return true;
}

/* Whether canon() may be skipped for s: the fast path is on (the tests
 * turn it off to compare with libcurl's way) and s is canonical already. */
static bool
takes_fast_path(const char *s)
{
	return url_fast_path && already_canonical(s);
}

/* url_canon of the cleaned input s.  Cleaning again would be wrong: a
 * control byte before a '#' ends the string once the fragment is cut,
 * yet it belongs to the URL. */
static bool
canon_cleaned(const char *s, char *out, const char **why)
{
	if (takes_fast_path(s)) {
		strcpy(out, s);
		return true;
	}
	return canon(s, NULL, out, why);
}

bool
url_is_canonical(const char *s, size_t n)
{
	/* A canonical URL has no byte that cleaning drops, nor a fragment:
	 * it is its own cleaned input. */
	return n <= URL_MAX && takes_fast_path(s);
}

bool
url_canon(const char *in, char *out, const char **why)
{
	size_t n = strnlen(in, URL_MAX + 1);
	if (url_is_canonical(in, n)) {
		memcpy(out, in, n + 1);
		return true;
	}
	char s[URL_BUFSIZE];
	return clean_input(in, s, why) && canon_cleaned(s, out, why);
}

/* Merges the relative reference ref (cleaned, no scheme) with the
 * canonical base as strings, by RFC 3986 sec. 5.2.2-5.2.3, leaving the
 * dot-segments to url_canon.  The links of a page are mostly relative
 * and mostly canonical once merged, so url_canon's fast path takes them;
 * merging through libcurl costs as much as parsing the page. */
static bool
merge(const char *base, const char *ref, char *out, const char **why)
{
	const char *authority = url_after_scheme(base);
	const char *path = authority + strcspn(authority, "/");
	size_t keep;
	if (ref[0] == '/' && ref[1] == '/')
		keep = (size_t)(authority - 2 - base);
	else if (ref[0] == '/')
		keep = (size_t)(path - base);
	else if (ref[0] == '?')
		keep = (size_t)(path - base) + strcspn(path, "?");
	else {
		/* Up to the last '/' of the path, not of the query. */
		const char *slash = path + strcspn(path, "?");
		while (slash[-1] != '/')
			slash--;
		keep = (size_t)(slash - base);
	}
	size_t n = strlen(ref);
	if (keep + n > URL_MAX)
		return fail(why, too_long);
	memmove(out + keep, ref, n + 1);
	memcpy(out, base, keep);
	return true;
}

/* RFC 3986 sec. 5.2.4 on the path of the merged URL s (absolute, http or
 * https), in place: its "." and ".." segments removed as libcurl removes
 * them.  False, and s unchanged, if the path has a '%', which may hide a
 * dot ("%2e"): libcurl's parse takes those. */
static bool
remove_dot_segments(char *s)
{
	char *path = strchr(url_after_scheme(s), '/');
	if (!path)
		return false;
	char *end = path + strcspn(path, "?");
	if (memchr(path, '%', (size_t)(end - path)))
		return false;
	char *w = path;
	for (const char *r = path; r < end;) {
		const char *seg = r + 1;
		const char *next = memchr(seg, '/', (size_t)(end - seg));
		if (!next)
			next = end;
		size_t n = (size_t)(next - seg);
		bool last = next == end;
		if (dot_segment(seg, next)) {
			if (n == 2)
				while (w > path && *--w != '/')
					;
			if (last)
				*w++ = '/';
		} else {
			*w++ = '/';
			memmove(w, seg, n);
			w += n;
		}
		r = next;
	}
	if (w == path)
		*w++ = '/';
	memmove(w, end, strlen(end) + 1);
	return true;
}

/* url_canon of the merged URL s: its dot-segments removed first by the
 * fast path when that makes it canonical. */
static bool
canon_merged(char *s, char *out, const char **why)
{
	char dedotted[URL_BUFSIZE];
	if (url_fast_path && strstr(s, "/.")) {
		strcpy(dedotted, s);
		if (remove_dot_segments(dedotted) && takes_fast_path(dedotted)) {
			strcpy(out, dedotted);
			return true;
		}
	}
	return canon_cleaned(s, out, why);
}

bool
url_resolve(const char *base, const char *ref, char *out, const char **why)
{
	char b[URL_BUFSIZE], s[URL_BUFSIZE];
	const char *ignored;
	if (!clean_input(ref, s, why))
		return false;
	if (takes_fast_path(base)) {
		if (!*s) {
			strcpy(out, base);
			return true;
		}
		if (scheme_length(s))
			return canon_cleaned(s, out, why);
		return merge(base, s, b, why) && canon_merged(b, out, why);
	}
	if (!url_canon(base, b, &ignored)) {
		*why = "bad base URL";
		return false;
	}
	return canon(s, b, out, why);
}

/* warcio.js strips "www", digits and a dot after the scheme before it
 * lower-cases the URL, so "WWW." stays. */
static void
strip_www(char *url)
{
	char *host = (char *)url_after_scheme(url), *p = host + 3;
	if (strncmp(host, "www", 3) != 0)
		return;
	while (is_digit(*p))
		p++;
	if (*p == '.')
		memmove(host, p + 1, strlen(p + 1) + 1);
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the query args of a canonical URL, in byte order. */
static char *
append_sorted_args(char *d, const char *query)
{
	char *copy = wa_strdup(query), **args = NULL, *arg;
	size_t n = 0, cap = 0;
	for (char *rest = copy; (arg = strsep(&rest, "&"));) {
		if (n == cap)
			args = wa_reallocarray(args, cap = cap ? 2 * cap : 8, sizeof *args);
		args[n++] = arg;
	}
	qsort(args, n, sizeof *args, compare_strings);
	for (size_t i = 0; i < n; i++)
		d += sprintf(d, "%s%s", i ? "&" : "?", args[i]);
	free(args);
	free(copy);
	return d;
}

char *
url_cdx_key(const char *url)
{
	if (!url_after_scheme(url))
		return wa_strdup(url);
	char *stripped = wa_strdup(url), low[URL_BUFSIZE], canon[URL_BUFSIZE];
	strip_www(stripped);
	size_t n = strlen(stripped), path_end = strcspn(stripped, "?#");
	/* In an http URL a backslash before the query is a '/' to WHATWG. */
	for (size_t i = 0; i < n && i < URL_MAX; i++)
		low[i] = stripped[i] == '\\' && i < path_end ? '/' :
		    (char)lower((unsigned char)stripped[i]);
	low[n < URL_MAX ? n : URL_MAX] = '\0';
	const char *why, *h, *e, *path;
	if (n > URL_MAX || !url_canon(low, canon, &why) || !(path = url_split(canon, &h, &e)))
		return stripped;
	free(stripped);
	char *key = wa_malloc(URL_BUFSIZE + 2);
	char *d = *h == '[' ? mempcpy(key, h, (size_t)(e - h)) : url_reversed_labels(h, e, key);
	d += sprintf(d, "%.*s)%.*s", (int)(path - e), e, (int)strcspn(path, "?"), path);
	const char *query = strchr(path, '?');
	if (query)
		d = append_sorted_args(d, query + 1);
	for (char *p = key; p < d; p++)
		*p = (char)lower((unsigned char)*p);
	return key;
}

static const psl_ctx_t *
suffix_list(void)
{
	pthread_mutex_lock(&psl_lock);
	if (!psl && !(psl = psl_latest(NULL)) && !(psl = (psl_ctx_t *)psl_builtin()))
		wa_die("cannot load the public-suffix list");
	pthread_mutex_unlock(&psl_lock);
	return psl;
}

bool
url_registrable_domain(const char *url, char *out)
{
	if (!url_host(url, out))
		return false;
	if (url_is_ip(out, strlen(out)))
		return true;
	const char *domain = psl_registrable_domain(suffix_list(), out);
	if (domain)
		memmove(out, domain, strlen(domain) + 1);
	return true;
}
