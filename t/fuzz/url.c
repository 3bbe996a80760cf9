/* Fuzz target: URL canonicalisation and resolution (src/lib/url.h).
 *
 * Input: "BASE\0REF" (without a NUL: the input is both the URL and the
 * reference, against a fixed base).  Checks, beyond no crash and no
 * sanitizer finding:
 *   - a canonical URL is http(s)://, at most URL_MAX bytes of printable
 *     ASCII with no '#', and canonicalising it again is the identity;
 *   - the fast path (url_fast_path) and libcurl's parse agree, on
 *     url_canon and url_resolve alike, success and result;
 *   - a canonical URL has a SURT key, a host that follows the scheme and a
 *     registrable domain that ends the host;
 *   - url_resolve gives a canonical URL, the same from the base as from
 *     its canonical form, the base itself for an empty reference and an
 *     absolute reference's own canonical form;
 *   - url_norm_percent is idempotent and within its 3n bound;
 *   - url_surt_cmp is antisymmetric. */
#include <stdbool.h>

#include "fuzz.h"
#include "url.h"

static bool
url_canon_both(const char *in, char *out, const char **why)
{
	char slow[URL_BUFSIZE];
	const char *why_slow;
	url_fast_path = false;
	bool ok_slow = url_canon(in, slow, &why_slow);
	url_fast_path = true;
	bool ok = url_canon(in, out, why);
	fuzz_check(ok == ok_slow, "url_canon \"%.200s\": fast path %s, libcurl %s", in,
	    ok ? out : *why, ok_slow ? slow : why_slow);
	if (ok)
		fuzz_check(strcmp(out, slow) == 0,
		    "url_canon \"%.200s\": fast path %s, libcurl %s", in, out, slow);
	return ok;
}

static bool
url_resolve_both(const char *base, const char *ref, char *out, const char **why)
{
	char slow[URL_BUFSIZE];
	const char *why_slow;
	url_fast_path = false;
	bool ok_slow = url_resolve(base, ref, slow, &why_slow);
	url_fast_path = true;
	bool ok = url_resolve(base, ref, out, why);
	fuzz_check(ok == ok_slow, "url_resolve \"%.200s\" \"%.200s\": fast path %s, libcurl %s",
	    base, ref, ok ? out : *why, ok_slow ? slow : why_slow);
	if (ok)
		fuzz_check(strcmp(out, slow) == 0,
		    "url_resolve \"%.200s\" \"%.200s\": fast path %s, libcurl %s", base, ref,
		    out, slow);
	return ok;
}

/* The properties of a URL that url_canon or url_resolve returned. */
static void
url_check_canonical(const char *url, const char *from)
{
	char again[URL_BUFSIZE], key[URL_BUFSIZE], host[URL_BUFSIZE], domain[URL_BUFSIZE];
	const char *why;
	size_t n = strlen(url);
	fuzz_check(n <= URL_MAX, "%s gave %zu bytes", from, n);
	fuzz_check(strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0,
	    "%s gave \"%.200s\": not http(s)", from, url);
	for (size_t i = 0; i < n; i++)
		fuzz_check(url[i] > ' ' && url[i] < 0x7f && url[i] != '#',
		    "%s gave \"%.200s\": byte 0x%02x at %zu", from, url,
		    (unsigned char)url[i], i);
	fuzz_check(url_canon_both(url, again, &why), "%s gave \"%.200s\", not canonical: %s",
	    from, url, why);
	fuzz_check(strcmp(again, url) == 0, "%s gave \"%.200s\", canonical form \"%.200s\"",
	    from, url, again);
	fuzz_check(url_surt(url, key), "no SURT key for \"%.200s\"", url);
	fuzz_check(url_host(url, host), "no host in \"%.200s\"", url);
	const char *after = url + (url[4] == 's' ? 8 : 7);
	fuzz_check(*host && strncmp(after, host, strlen(host)) == 0,
	    "host \"%s\" of \"%.200s\"", host, url);
	fuzz_check(url_registrable_domain(url, domain), "no domain for \"%.200s\"", url);
	size_t hl = strlen(host), dl = strlen(domain);
	fuzz_check(dl && dl <= hl && strcmp(host + hl - dl, domain) == 0 &&
	    (dl == hl || host[hl - dl - 1] == '.'),
	    "domain \"%s\" of host \"%s\"", domain, host);
}

static void
url_check_percent(const char *s, size_t n)
{
	char *once = wa_malloc(3 * n + 1), *twice;
	size_t n1 = url_norm_percent(s, n, once);
	fuzz_check(n1 <= 3 * n && once[n1] == '\0', "url_norm_percent wrote %zu of %zu", n1, n);
	twice = wa_malloc(3 * n1 + 1);
	size_t n2 = url_norm_percent(once, n1, twice);
	fuzz_check(n2 == n1 && memcmp(once, twice, n1) == 0,
	    "url_norm_percent not idempotent: \"%.200s\" then \"%.200s\"", once, twice);
	free(once);
	free(twice);
}

static int
url_fuzz_one(const uint8_t *data, size_t size)
{
	static const char fixed_base[] = "http://example.com/a/b/c?q=1";
	char *buf = wa_malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	const char *base = buf, *ref = buf;
	size_t base_len = strlen(buf);
	if (base_len < size)
		ref = buf + base_len + 1;	/* up to the next NUL, if any */
	else
		base = fixed_base;

	char cbase[URL_BUFSIZE], cref[URL_BUFSIZE], res[URL_BUFSIZE], res2[URL_BUFSIZE];
	char key_a[URL_BUFSIZE], key_b[URL_BUFSIZE];
	const char *why;
	bool base_ok = url_canon_both(base, cbase, &why);
	if (base_ok)
		url_check_canonical(cbase, "url_canon(base)");
	bool ref_ok = url_canon_both(ref, cref, &why);
	if (ref_ok)
		url_check_canonical(cref, "url_canon(ref)");
	url_check_percent(ref, strlen(ref));

	bool res_ok = url_resolve_both(base, ref, res, &why);
	if (res_ok)
		url_check_canonical(res, "url_resolve");
	if (!base_ok) {
		fuzz_check(!res_ok, "url_resolve with the bad base \"%.200s\" gave %s", base, res);
	} else {
		bool res2_ok = url_resolve_both(cbase, ref, res2, &why);
		fuzz_check(res_ok == res2_ok && (!res_ok || strcmp(res, res2) == 0),
		    "url_resolve(\"%.200s\") and url_resolve(its canonical form) differ", base);
		fuzz_check(url_resolve_both(base, "", res2, &why) && strcmp(res2, cbase) == 0,
		    "an empty reference against \"%.200s\" is not the base", base);
		if (ref_ok)
			fuzz_check(res_ok && strcmp(res, cref) == 0,
			    "the absolute reference \"%.200s\" resolves to %s, not %s", ref,
			    res_ok ? res : why, cref);
	}
	if (base_ok && ref_ok && url_surt(cbase, key_a) && url_surt(cref, key_b)) {
		int ab = url_surt_cmp(key_a, cbase, key_b, cref);
		int ba = url_surt_cmp(key_b, cref, key_a, cbase);
		fuzz_check((ab > 0) == (ba < 0) && (ab == 0) == (ba == 0),
		    "url_surt_cmp not antisymmetric on %s and %s", cbase, cref);
	}
	free(buf);
	return 0;
}

FUZZ_TARGET(url_fuzz_one)
