/* gen-graph: writes a random directed graph as a links TSV, for the tests
 * and the benchmark of the ranking tools (scripts/bench-rank).
 *
 * Models:
 *   uniform   every page links to d distinct pages drawn uniformly (the
 *             random graphs of Preda, "Data Acquisition for an XML
 *             Warehouse", 2000, sec. 2.4: 10 out-links per page);
 *   powerlaw  pages grouped in sites of Zipf-distributed sizes; most links
 *             stay inside their site; targets are drawn with a Zipf law on
 *             the pages' rank in their site (and on the site for links
 *             leaving it), which gives a power-law in-degree of exponent
 *             -g; out-degrees are geometric around d, a fraction -D of the
 *             pages have none.
 *   web       the powerlaw model made like the web for wa-partition's
 *             benchmark (scripts/bench-partition): sites of Zipf sizes
 *             whose pages sit in directories of -B pages; a fraction -l
 *             (default 0.9) of the links stay in their site, and of these
 *             a fraction -L in their directory (to a page drawn with the
 *             Zipf law on its rank in the directory: the directory's index
 *             pages are popular), the others to a page of the site drawn
 *             with the Zipf law on its rank (the home page's directory is
 *             the most popular); of the links that leave the site a
 *             fraction -R go to a related site, one of a cluster of about
 *             -C sites (the clusters are random sets of sites, not
 *             neighbours in URL order), drawn with a Zipf law on the
 *             members' rank by size, the others to any site as in
 *             powerlaw.
 *             Castillo ("Effective Web Crawling", 2004, Figure 6.3)
 *             shows how skewed site sizes are; the link fractions are
 *             assumptions: none of the papers measures them.
 *
 * Page p (0 <= p < n) is http://sSITE.example/pPAGE with both numbers
 * zero-padded to a fixed width, sites being ranges of consecutive pages: so
 * the byte order of the URLs and their SURT order are both the order of p
 * (with -m web the page is http://sSITE.example/dDIR/pPAGE, DIR numbered
 * in the site: the same holds), and a graph id given by wa-linkmat equals
 * p when every page is a node
 * (-P lists them all).  A page's links depend only on the seed, the model
 * parameters and p.  No self links, no duplicate links. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "wa.h"

static const char usage[] =
    "usage: gen-graph [-n PAGES] [-d DEGREE] [-m uniform|powerlaw|web] [-s SEED]\n"
    "                 [-f tsv|ids|bin|none] [-S SITESIZE] [-l LOCAL] [-g GAMMA]\n"
    "                 [-D DANGLING] [-B DIRSIZE] [-L DIRLOCAL] [-C CLUSTER]\n"
    "                 [-R RELATED] [-P PAGES_OUT] [-x XML] [-o OUT]\n"
    "Writes a random directed graph as links TSV (src<TAB>dst) on stdout.\n"
    "  -n PAGES     pages: a number, with K M G (powers of 1024), or 2^K\n"
    "               (default 2^16)\n"
    "  -d DEGREE    average out-links per page (default 10)\n"
    "  -m MODEL     uniform (default), powerlaw (sites, power-law in-degree)\n"
    "               or web (powerlaw with directories and related sites)\n"
    "  -s SEED      the random seed (default 1); same seed, same graph\n"
    "  -f FORMAT    tsv: URLs (default); ids: 'src dst' page numbers;\n"
    "               bin: u32 src, u32 dst little-endian pairs; none: only -P\n"
    "  -S SITESIZE  average pages per site (default 1000 uniform, 200 powerlaw\n"
    "               and web)\n"
    "  -l LOCAL     powerlaw, web: fraction of links inside the site\n"
    "               (default 0.8 powerlaw, 0.9 web)\n"
    "  -g GAMMA     powerlaw, web: exponent of the in-degree law (default 2.1)\n"
    "  -D DANGLING  fraction of pages without out-links (default 0 uniform,\n"
    "               0.05 powerlaw and web)\n"
    "  -B DIRSIZE   web: pages per directory (default 32)\n"
    "  -L DIRLOCAL  web: fraction of a site's links inside the directory\n"
    "               (default 0.6)\n"
    "  -C CLUSTER   web: average sites per cluster of related sites\n"
    "               (default 16)\n"
    "  -R RELATED   web: fraction of the links leaving a site that go to\n"
    "               its cluster (default 0.8)\n"
    "  -P FILE      also write the pages TSV (url<TAB>html|xml) of every page\n"
    "  -x XML       fraction of the pages typed xml in -P (default 0.1)\n"
    "  -o FILE      write the links there instead of stdout\n"
    "  -h           this help\n";

enum model { UNIFORM, POWERLAW, WEB };
enum format { F_TSV, F_IDS, F_BIN, F_NONE };

static uint64_t n = 1 << 16, seed = 1;
static double degree = 10, local = -1, gamma_in = 2.1, dangling = -1, xml = 0.1;
static double dir_local = 0.6, related = 0.8, cluster_avg = 16;
static uint64_t dir_size = 32;
static double site_avg = 0;
static enum model model = UNIFORM;
static enum format format = F_TSV;

static uint64_t nsites;
static uint64_t *site_lo;	/* nsites + 1 */
static int page_width, site_width;
static double rank_a;		/* Zipf exponent on ranks: 1 / (gamma - 1) */
static int dir_width;		/* web: digits of a directory number */
static uint64_t nclusters;	/* web: the related sites of each cluster, */
static uint64_t *cluster_lo;	/* members of cluster c in member[cluster_lo[c] */
static uint64_t *member;	/* .. cluster_lo[c + 1]), by site number */
static uint64_t *cluster_of;	/* a site's cluster */

/* Output through a large buffer and write(2). */
static char *obuf;
static size_t olen;
#define OBUF_SIZE (4u << 20)
static int ofd = 1;
static const char *oname = "stdout";

static void
oflush(void)
{
	size_t off = 0;
	while (off < olen) {
		ssize_t w = write(ofd, obuf + off, olen - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			wa_die_errno("%s: write", oname);
		}
		off += (size_t)w;
	}
	olen = 0;
}

/* xoshiro256** seeded per page, so a page's links do not depend on the
 * others'. */
struct rng { uint64_t s[4]; };

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

static void
rng_seed(struct rng *r, uint64_t page, uint64_t stream)
{
	uint64_t x = seed * 0xd1342543de82ef95ULL + page * HASH_GOLDEN64 +
	    stream * 0xa0761d6478bd642fULL;
	for (int i = 0; i < 4; i++)
		r->s[i] = hash_splitmix64(&x);
}

/* Uniform in [0, 1). */
static inline double
rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, m), Lemire's multiply-shift (bias below 2^-32 for our m). */
static inline uint64_t
rng_below(struct rng *r, uint64_t m)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * m) >> 64);
}

/* A rank in [0, size) with P(r) about proportional to (r + 1)^-a: the
 * inverse of the continuous law's distribution function on [1, size + 1). */
static inline uint64_t
zipf(struct rng *r, uint64_t size, double a)
{
	double u = rng_unit(r), x;
	if (fabs(a - 1) < 1e-9)
		x = exp(u * log((double)size + 1));
	else
		x = pow(1 + u * (pow((double)size + 1, 1 - a) - 1), 1 / (1 - a));
	uint64_t k = x < 1 ? 0 : (uint64_t)x - 1;
	return k < size ? k : size - 1;
}

static int
digits(uint64_t v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v zero-padded to width w (v has at most w digits). */
static inline char *
put_num(char *p, uint64_t v, int w)
{
	char *q = p + w;
	while (q - p >= 2) {
		q -= 2;
		memcpy(q, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (q > p)
		*--q = (char)('0' + v % 10);
	return p + w;
}

static inline char *
put_dec(char *p, uint64_t v)
{
	return put_num(p, v, digits(v));
}

static uint64_t
site_of(uint64_t page)
{
	uint64_t lo = 0, hi = nsites;	/* site_lo[lo] <= page < site_lo[hi] */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (site_lo[mid] <= page)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static char *
put_url(char *p, uint64_t page, uint64_t site)
{
	memcpy(p, "http://s", 8);
	p = put_num(p + 8, site, site_width);
	if (model == WEB) {
		memcpy(p, ".example/d", 10);
		p = put_num(p + 10, (page - site_lo[site]) / dir_size, dir_width);
		memcpy(p, "/p", 2);
		return put_num(p + 2, page, page_width);
	}
	memcpy(p, ".example/p", 10);
	return put_num(p + 10, page, page_width);
}

static void
make_sites(void)
{
	if (site_avg <= 0)
		site_avg = model == UNIFORM ? 1000 : 200;
	nsites = (uint64_t)((double)n / site_avg);
	if (nsites < 1)
		nsites = 1;
	site_lo = wa_calloc(nsites + 1, sizeof *site_lo);
	if (model == UNIFORM) {
		for (uint64_t k = 0; k <= nsites; k++)
			site_lo[k] = (uint64_t)((unsigned __int128)n * k / nsites);
		return;
	}
	/* Zipf sizes, exponent 1, at least one page each; the rest to site 0. */
	double h = 0;
	for (uint64_t k = 0; k < nsites; k++)
		h += 1.0 / (double)(k + 1);
	uint64_t sum = 0;
	uint64_t *size = wa_calloc(nsites, sizeof *size);
	for (uint64_t k = 0; k < nsites; k++) {
		uint64_t s = (uint64_t)((double)n / (h * (double)(k + 1)));
		size[k] = s ? s : 1;
		sum += size[k];
	}
	/* Rounding down leaves pages over; rounding up the small sites may
	 * overshoot: take them back from the largest sites. */
	if (sum <= n)
		size[0] += n - sum;
	else
		for (uint64_t k = 0, over = sum - n; over; k = (k + 1) % nsites)
			if (size[k] > 1) {
				size[k]--;
				over--;
			}
	site_lo[0] = 0;
	for (uint64_t k = 0; k < nsites; k++)
		site_lo[k + 1] = site_lo[k] + size[k];
	free(size);
}

/* web: sites in clusters of related sites.  A site's cluster comes from
 * a hash of the seed and its number, so that the members of a cluster are
 * scattered over the URL order. */
static void
make_clusters(void)
{
	nclusters = (uint64_t)((double)nsites / cluster_avg);
	if (nclusters < 1)
		nclusters = 1;
	cluster_of = wa_calloc(nsites, sizeof *cluster_of);
	cluster_lo = wa_calloc(nclusters + 1, sizeof *cluster_lo);
	member = wa_calloc(nsites, sizeof *member);
	for (uint64_t k = 0; k < nsites; k++) {
		uint64_t x = seed * HASH_GOLDEN64 ^ (k + 1) * 0xd1342543de82ef95ULL;
		cluster_of[k] = hash_splitmix64(&x) % nclusters;
		cluster_lo[cluster_of[k] + 1]++;
	}
	for (uint64_t c = 0; c < nclusters; c++)
		cluster_lo[c + 1] += cluster_lo[c];
	uint64_t *at = wa_calloc(nclusters, sizeof *at);
	for (uint64_t k = 0; k < nsites; k++)
		member[cluster_lo[cluster_of[k]] + at[cluster_of[k]]++] = k;
	free(at);
}

/* web: the target of one link of page p of site (in directory dlo ..
 * dlo + dn); *vs its site. */
static uint64_t
web_target(struct rng *r, uint64_t site, uint64_t dlo, uint64_t dn, uint64_t *vs)
{
	uint64_t lo = site_lo[site], size = site_lo[site + 1] - lo;
	if (size > 1 && rng_unit(r) < local) {
		*vs = site;
		if (dn > 1 && rng_unit(r) < dir_local)
			return dlo + zipf(r, dn, rank_a);
		return lo + zipf(r, size, rank_a);
	}
	uint64_t c = cluster_of[site], cn = cluster_lo[c + 1] - cluster_lo[c];
	if (cn > 1 && rng_unit(r) < related)
		*vs = member[cluster_lo[c] + zipf(r, cn, 1.0)];
	else
		*vs = zipf(r, nsites, 1.0);
	return site_lo[*vs] + zipf(r, site_lo[*vs + 1] - site_lo[*vs], rank_a);
}

#define NO_SITE UINT64_MAX

static bool
have(const uint64_t *t, uint64_t k, uint64_t v)
{
	for (uint64_t i = 0; i < k; i++)
		if (t[i] == v)
			return true;
	return false;
}

/* The out-links of page p into t (at most max), their count returned. */
static uint64_t
links_of(uint64_t p, uint64_t site, uint64_t *t, uint64_t *ts, uint64_t max)
{
	struct rng r;
	rng_seed(&r, p, 0);
	uint64_t k;
	if (dangling > 0 && rng_unit(&r) < dangling)
		return 0;
	double mean = dangling > 0 ? degree / (1 - dangling) : degree;
	if (model == UNIFORM) {
		k = (uint64_t)mean;
		if (rng_unit(&r) < mean - (double)k)
			k++;
	} else {
		/* 1 + geometric of mean (mean - 1). */
		double m = mean - 1;
		k = 1;
		if (m > 0) {
			double q = m / (1 + m), u = rng_unit(&r);
			k += (uint64_t)floor(log1p(-u) / log(q));
		}
	}
	if (k > max)
		k = max;
	if (k > n - 1)
		k = n - 1;
	uint64_t lo = site_lo[site], size = site_lo[site + 1] - lo;
	uint64_t dlo = lo + (p - lo) / dir_size * dir_size, dn = size - (dlo - lo);
	if (dn > dir_size)
		dn = dir_size;
	for (uint64_t i = 0; i < k; i++) {
		uint64_t v = p, vs = NO_SITE;
		for (int tries = 0; tries < 64 && (v == p || have(t, i, v)); tries++) {
			if (model == WEB && tries < 32)
				v = web_target(&r, site, dlo, dn, &vs);
			else if (model == UNIFORM || tries >= 32) {
				v = rng_below(&r, n);
				vs = NO_SITE;
			} else if (size > 1 && rng_unit(&r) < local) {
				v = lo + zipf(&r, size, rank_a);
				vs = site;
			} else {
				vs = zipf(&r, nsites, 1.0);
				v = site_lo[vs] + zipf(&r, site_lo[vs + 1] - site_lo[vs], rank_a);
			}
		}
		if (v == p || have(t, i, v)) {	/* a crowded corner: scan for a free page */
			v = (p + 1) % n;
			while (v == p || have(t, i, v))
				v = (v + 1) % n;
			vs = NO_SITE;
		}
		t[i] = v;
		ts[i] = vs;
	}
	return k;
}

static uint64_t
parse_pages(const char *arg)
{
	uint64_t v;
	if (strncmp(arg, "2^", 2) == 0) {
		v = opt_count("-n", arg + 2, 1, 32);
		return (uint64_t)1 << v;
	}
	v = opt_size("-n", arg);
	if (v < 2 || v > UINT32_MAX)
		wa_usage_error("-n: %s pages: from 2 to 2^32-1", arg);
	return v;
}

static void
write_pages(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		wa_die_errno("%s", path);
	static char buf[1 << 16];
	size_t len = 0;
	uint64_t site = 0;
	for (uint64_t p = 0; p < n; p++) {
		while (p >= site_lo[site + 1])
			site++;
		struct rng r;
		rng_seed(&r, p, 1);
		char *q = put_url(buf + len, p, site);
		const char *ty = rng_unit(&r) < xml ? "\txml\n" : "\thtml\n";
		size_t tl = strlen(ty);
		memcpy(q, ty, tl);
		len = (size_t)(q - buf) + tl;
		if (len > sizeof buf - 256) {
			if (fwrite(buf, 1, len, f) != len)
				wa_die_errno("%s: write", path);
			len = 0;
		}
	}
	if (fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		wa_die_errno("%s: write", path);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	const char *pages_out = NULL, *out = NULL;
	int c, web_options = 0;

	wa_init(argc, argv, usage);
	while ((c = getopt_long(argc, argv, "B:C:D:d:f:g:hL:l:m:n:o:P:qR:S:s:x:", longopts, NULL)) != -1) {
		if (c == 'B' || c == 'C' || c == 'L' || c == 'R')
			web_options++;
		switch (c) {
		case 'n': n = parse_pages(optarg); break;
		case 'd': degree = opt_double("-d", optarg, 0, 1e6); break;
		case 'm':
			if (strcmp(optarg, "uniform") == 0)
				model = UNIFORM;
			else if (strcmp(optarg, "powerlaw") == 0)
				model = POWERLAW;
			else if (strcmp(optarg, "web") == 0)
				model = WEB;
			else
				wa_usage_error("-m: unknown model '%s' (uniform, powerlaw, web)", optarg);
			break;
		case 's': seed = opt_count("-s", optarg, 0, UINT64_MAX); break;
		case 'f':
			if (strcmp(optarg, "tsv") == 0)
				format = F_TSV;
			else if (strcmp(optarg, "ids") == 0)
				format = F_IDS;
			else if (strcmp(optarg, "bin") == 0)
				format = F_BIN;
			else if (strcmp(optarg, "none") == 0)
				format = F_NONE;
			else
				wa_usage_error("-f: unknown format '%s' (tsv, ids, bin, none)", optarg);
			break;
		case 'S': site_avg = opt_double("-S", optarg, 1, 1e12); break;
		case 'l': local = opt_double("-l", optarg, 0, 1); break;
		case 'g': gamma_in = opt_double("-g", optarg, 1.01, 100); break;
		case 'D': dangling = opt_double("-D", optarg, 0, 0.99); break;
		case 'P': pages_out = optarg; break;
		case 'x': xml = opt_double("-x", optarg, 0, 1); break;
		case 'o': out = optarg; break;
		case 'B': dir_size = opt_count("-B", optarg, 1, UINT32_MAX); break;
		case 'L': dir_local = opt_double("-L", optarg, 0, 1); break;
		case 'C': cluster_avg = opt_double("-C", optarg, 1, 1e12); break;
		case 'R': related = opt_double("-R", optarg, 0, 1); break;
		default: wa_common_option(c);
		}
	}
	if (optind != argc)
		wa_usage_error("unexpected argument '%s'", argv[optind]);
	if (web_options && model != WEB)
		wa_usage_error("-B, -C, -L and -R are for -m web");
	if (local < 0)
		local = model == WEB ? 0.9 : 0.8;
	if (dangling < 0)
		dangling = model == UNIFORM ? 0 : 0.05;
	rank_a = 1 / (gamma_in - 1);
	make_sites();
	page_width = digits(n - 1);
	site_width = digits(nsites - 1);
	if (model == WEB) {
		make_clusters();
		uint64_t most = 0;
		for (uint64_t k = 0; k < nsites; k++)
			if (site_lo[k + 1] - site_lo[k] > most)
				most = site_lo[k + 1] - site_lo[k];
		dir_width = digits((most - 1) / dir_size);
	}
	if (pages_out)
		write_pages(pages_out);
	if (format == F_NONE)
		return 0;
	if (out) {
		ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (ofd < 0)
			wa_die_errno("%s", out);
		oname = out;
	}

	obuf = wa_malloc(OBUF_SIZE);
	uint64_t max = (uint64_t)(degree * 20 + 64), *t = wa_calloc(max, sizeof *t);
	uint64_t *ts = wa_calloc(max, sizeof *ts);
	size_t line_max = 2 * 64 + 4;
	uint64_t site = 0;
	char src[64];
	for (uint64_t p = 0; p < n; p++) {
		while (p >= site_lo[site + 1])
			site++;
		uint64_t k = links_of(p, site, t, ts, max);
		if (!k)
			continue;
		size_t sl = 0;
		if (format == F_TSV) {
			sl = (size_t)(put_url(src, p, site) - src);
			src[sl++] = '\t';
		} else if (format == F_IDS) {
			sl = (size_t)(put_dec(src, p) - src);
			src[sl++] = ' ';
		}
		if (max * line_max + olen > OBUF_SIZE)
			oflush();
		for (uint64_t i = 0; i < k; i++) {
			char *q = obuf + olen;
			if (format == F_BIN) {
				uint32_t pair[2] = { (uint32_t)p, (uint32_t)t[i] };
				memcpy(q, pair, 8);
				olen += 8;
				continue;
			}
			memcpy(q, src, sl);
			q += sl;
			if (format == F_TSV) {
				uint64_t s = ts[i] != NO_SITE ? ts[i] :
				    site_lo[site] <= t[i] && t[i] < site_lo[site + 1] ? site :
				    site_of(t[i]);
				q = put_url(q, t[i], s);
			} else
				q = put_dec(q, t[i]);
			*q++ = '\n';
			olen = (size_t)(q - obuf);
		}
	}
	oflush();
	if (out && close(ofd) != 0)
		wa_die_errno("%s: close", out);
	free(t);
	free(ts);
	free(obuf);
	free(site_lo);
	free(cluster_of);
	free(cluster_lo);
	free(member);
	return 0;
}
