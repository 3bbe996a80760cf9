/* opic-kernel: the OPIC computation of src/lib/opic.c alone, on a graph
 * held in memory as integer ids (compressed sparse rows), for
 * scripts/bench-opic: no URLs, no text, no state file.  Times page reads
 * with each policy (plain, Interpolation, Variable Window, Improved Fixed
 * Window) in two orders without the Greedy policy (Cycle: ids in turn;
 * Random: one random permutation of the ids, every round), single
 * thread, best of several runs; then checks the computation beside an
 * independent power iteration on the same rows, whose fixpoint is that
 * of the OPIC paper's graph with the virtual page, x = c A'(x/d) + (1 - c
 * sum_{d>0} x)/n (PageRank with damping c, dangling pages spread
 * evenly): plain OPIC's history gained in the last of -e Cycle rounds
 * must be within -E of it (relative L1), and the total cash 1; the
 * distance of each policy's importance estimate is printed.
 *
 * The graph is gen-graph's -f bin output (u32 src, u32 dst pairs); self
 * links and repeated links of a page are dropped, as wa-opic does. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hash.h"
#include "opic.h"
#include "wa.h"

static const char usage[] =
    "usage: opic-kernel [-n PAGES] [-r ROUNDS] [-R RUNS] [-e CYCLES] [-E ERROR]\n"
    "                   [-c C] [-s SEED] [-p DISTANCE] [GRAPH]\n"
    "Times OPIC's page reads on a graph in memory (gen-graph -f bin pairs from\n"
    "GRAPH or stdin) and checks the result against a power iteration.\n"
    "  -n PAGES     pages (default the largest id + 1)\n"
    "  -r ROUNDS    rounds timed: each reads every page once (default 2)\n"
    "  -R RUNS      runs of each measurement, the fastest kept (default 3)\n"
    "  -e CYCLES    Cycle rounds before the check against the fixpoint\n"
    "               (default 30, at least 2; 0: no check)\n"
    "  -E ERROR     the largest relative L1 difference from the fixpoint\n"
    "               of plain OPIC's history gain in the last round (1e-6)\n"
    "  -c C         share of a page's cash given to its links (default 0.85)\n"
    "  -s SEED      seed of the random order (default 1)\n"
    "  -p DISTANCE  reads ahead whose pages are prefetched (default 4; 0: none)\n"
    "  -h           this help\n";

/* Compressed sparse rows: the children of page i are
 * child[first[i] .. first[i + 1]). */
struct csr {
	size_t n, links;
	size_t *first;
	uint32_t *child;
};

static struct csr g;
static double c = 0.85;
static size_t distance = 4;

static void
read_graph(const char *path, size_t n_given)
{
	FILE *f = path ? fopen(path, "rb") : stdin;
	const char *name = path ? path : "standard input";
	if (!f)
		wa_die_errno("%s", name);
	/* The whole file in memory, then its pairs. */
	char *bytes = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			bytes = wa_realloc(bytes, cap);
		}
		got = fread(bytes + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f))
		wa_die_errno("%s", name);
	if (path)
		fclose(f);
	if (len % 8)
		wa_die("%s: %zu bytes, not u32 pairs", name, len);
	size_t npairs = len / 8, max_id = 0;
	uint32_t *pair = wa_reallocarray(NULL, npairs ? 2 * npairs : 1, sizeof *pair);
	memcpy(pair, bytes, len);
	free(bytes);
	for (size_t k = 0; k < 2 * npairs; k++)
		if (pair[k] > max_id)
			max_id = pair[k];
	size_t n = npairs ? max_id + 1 : 0;
	if (n_given) {
		if (n_given < n)
			wa_die("%s: id %zu beyond -n %zu", name, max_id, n_given);
		n = n_given;
	}
	if (n == 0 || n > OPIC_MAX_PAGES)
		wa_die("%s: %zu pages", name, n);
	g.n = n;
	g.first = wa_calloc(n + 1, sizeof *g.first);
	for (size_t k = 0; k < npairs; k++)
		g.first[pair[2 * k] + 1]++;
	for (size_t i = 0; i < n; i++)
		g.first[i + 1] += g.first[i];
	g.child = wa_reallocarray(NULL, npairs ? npairs : 1, sizeof *g.child);
	size_t *fill = wa_reallocarray(NULL, n, sizeof *fill);
	memcpy(fill, g.first, n * sizeof *fill);
	for (size_t k = 0; k < npairs; k++)
		g.child[fill[pair[2 * k]]++] = pair[2 * k + 1];
	/* No self links, no repeated links: rows shrink in place. */
	uint32_t *mark = wa_calloc(n, sizeof *mark);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		size_t from = g.first[i], to = g.first[i + 1];
		g.first[i] = out;
		for (size_t k = from; k < to; k++) {
			uint32_t d = g.child[k];
			if (d == i || mark[d] == i + 1)
				continue;
			mark[d] = (uint32_t)i + 1;
			g.child[out++] = d;
		}
	}
	g.first[n] = g.links = out;
	free(mark);
	free(fill);
	free(pair);
}

struct policy {
	const char *name;
	enum opic_policy policy;
	double window;		/* in rounds */
	size_t keep;
};

static const struct policy policies[] = {
	{ "plain OPIC", OPIC_PLAIN, 0, 0 },
	{ "Interpolation, -W 1 round", OPIC_INTERPOLATION, 1, 0 },
	{ "Variable Window, -K 8", OPIC_VARIABLE_WINDOW, 0, 8 },
	{ "Impr. Fixed Window, -F 1 round -M 3", OPIC_FIXED_WINDOW, 1, 3 },
};

static void
start(struct opic *o, const struct policy *p)
{
	opic_init(o, p->policy, OPIC_READS, c, p->window * (double)g.n, p->keep);
	opic_reserve(o, g.n);
	for (size_t i = 0; i < g.n; i++)
		opic_add_page(o, 0);
}

/* Reads the pages in order, rounds times.  The children of the read
 * distance ahead are asked for; the row of the read twice as far, so
 * that its ids are there when they are needed. */
static void
run_reads(struct opic *o, const uint32_t *order, size_t rounds)
{
	size_t n = g.n;
	for (size_t r = 0; r < rounds; r++)
		for (size_t k = 0; k < n; k++) {
			uint32_t s = order ? order[k] : (uint32_t)k;
			if (distance) {
				size_t a = k + distance, b = k + 2 * distance;
				if (a < n) {
					uint32_t sa = order ? order[a] : (uint32_t)a;
					opic_prefetch(o, sa, false);
					for (size_t j = g.first[sa]; j < g.first[sa + 1]; j++)
						opic_prefetch(o, g.child[j], true);
				}
				if (b < n && order) {
					__builtin_prefetch(&g.first[order[b]]);
					__builtin_prefetch(&g.child[g.first[order[b]]]);
				}
			}
			opic_read(o, s, g.child + g.first[s], g.first[s + 1] - g.first[s], NULL,
			    0, (double)o->reads);
		}
}

static double
cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The fixpoint by power iteration, until the L1 change is below 1e-13. */
static double *
fixpoint(void)
{
	size_t n = g.n;
	double *x = wa_reallocarray(NULL, n, sizeof *x), *y = wa_reallocarray(NULL, n, sizeof *y);
	for (size_t i = 0; i < n; i++)
		x[i] = 1 / (double)n;
	for (int it = 0; it < 1000; it++) {
		double kept = 0, change = 0;
		memset(y, 0, n * sizeof *y);
		for (size_t i = 0; i < n; i++) {
			size_t d = g.first[i + 1] - g.first[i];
			if (!d)
				continue;
			double each = c * x[i] / (double)d;
			kept += c * x[i];
			for (size_t j = g.first[i]; j < g.first[i + 1]; j++)
				y[g.child[j]] += each;
		}
		double rest = (1 - kept) / (double)n, sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += y[i] += rest;
		for (size_t i = 0; i < n; i++) {
			y[i] /= sum;
			change += fabs(y[i] - x[i]);
		}
		double *t = x;
		x = y;
		y = t;
		if (change < 1e-13)
			break;
	}
	free(y);
	return x;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	size_t n_given = 0, rounds = 2, runs = 3, cycles = 30;
	uint64_t seed = 1;
	double max_error = 1e-6;
	int opt;

	wa_init(argc, argv, usage);
	while ((opt = getopt_long(argc, argv, "c:E:e:hn:p:qR:r:s:", longopts, NULL)) != -1)
		switch (opt) {
		case 'c': c = opt_double("-c", optarg, 0, 1); break;
		case 'E': max_error = opt_double("-E", optarg, 0, 2); break;
		case 'e': cycles = opt_count("-e", optarg, 0, 1000000); break;
		case 'n': n_given = opt_count("-n", optarg, 1, OPIC_MAX_PAGES); break;
		case 'p': distance = opt_count("-p", optarg, 0, 1024); break;
		case 'R': runs = opt_count("-R", optarg, 1, 1000); break;
		case 'r': rounds = opt_count("-r", optarg, 1, 1000000); break;
		case 's': seed = opt_count("-s", optarg, 0, UINT64_MAX); break;
		default: wa_common_option(opt);
		}
	if (cycles == 1)
		wa_usage_error("-e: the check compares two rounds: 0 or at least 2");
	if (argc - optind > 1)
		wa_usage_error("one graph at most");
	read_graph(optind < argc && strcmp(argv[optind], "-") != 0 ? argv[optind] : NULL,
	    n_given);

	/* Random order: a Fisher-Yates shuffle driven by splitmix64. */
	uint32_t *perm = wa_reallocarray(NULL, g.n, sizeof *perm);
	for (size_t i = 0; i < g.n; i++)
		perm[i] = (uint32_t)i;
	uint64_t state = seed;
	for (size_t i = g.n - 1; i > 0; i--) {
		uint64_t z = hash_splitmix64(&state);
		size_t j = (size_t)(z % (i + 1));
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}

	printf("graph: %zu pages, %zu links (%.2f per page); %zu rounds, best of %zu runs,"
	    " prefetch distance %zu\n", g.n, g.links, (double)g.links / (double)g.n, rounds,
	    runs, distance);
	printf("%-38s %-7s %8s %12s %12s %8s\n", "policy", "order", "CPU s", "reads/s",
	    "updates/s", "x target");
	struct opic o;
	for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
		for (int random = 0; random < 2; random++) {
			double best = INFINITY;
			for (size_t r = 0; r < runs; r++) {
				start(&o, &policies[p]);
				double t0 = cpu_seconds();
				run_reads(&o, random ? perm : NULL, rounds);
				double t = cpu_seconds() - t0;
				if (t < best)
					best = t;
				opic_free(&o);
			}
			double reads = (double)(rounds * g.n), links = (double)rounds * (double)g.links;
			printf("%-38s %-7s %8.3f %12.3g %12.3g %8.2f\n", policies[p].name,
			    random ? "Random" : "Cycle", best, reads / best, links / best,
			    reads / best / 1e6);
			fflush(stdout);
		}
	if (!cycles) {
		free(perm);
		free(g.first);
		free(g.child);
		return WA_EXIT_OK;
	}

	double *x = fixpoint(), *key = wa_reallocarray(NULL, g.n, sizeof *key);
	printf("\ncheck against the power iteration's fixpoint (c %g) after %zu Cycle"
	    " rounds:\nrelative L1 difference of the importance, and the total cash\n", c,
	    cycles);
	int status = WA_EXIT_OK;
	for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
		start(&o, &policies[p]);
		run_reads(&o, NULL, cycles - 1);
		/* Plain OPIC: what the history gains in a round of Cycle is the
		 * cash every page passed on; in the steady state that flow is
		 * the fixpoint (OPIC paper, sec. 2), reached as fast as the power
		 * iteration converges, while H + C also carries the first
		 * rounds' unequal cash and converges as 1/rounds. */
		for (size_t i = 0; i < g.n; i++)
			key[i] = o.page[i].hist;
		run_reads(&o, NULL, 1);
		double gained = 0, gain_diff = 0;
		for (size_t i = 0; i < g.n; i++)
			gained += key[i] = o.page[i].hist - key[i];
		for (size_t i = 0; i < g.n; i++)
			gain_diff += fabs(key[i] / gained - x[i]);
		opic_settle(&o);
		opic_importance(&o, key);
		double diff = 0, cash = o.virt_cash;
		for (size_t i = 0; i < g.n; i++) {
			diff += fabs(key[i] - x[i]);
			cash += o.cash[i].cash;
		}
		bool bad = !(fabs(cash - 1) < 1e-6);
		printf("%-38s %12.3g %18.15f%s\n", policies[p].name, diff, cash,
		    bad ? "  FAILED" : "");
		if (p == 0) {
			bool far = !(gain_diff <= max_error);
			printf("%-38s %12.3g%s\n", "plain OPIC, history gained, last round",
			    gain_diff, far ? "  FAILED" : "");
			bad |= far;
		}
		if (bad)
			status = WA_EXIT_ERROR;
		opic_free(&o);
	}
	free(x);
	free(key);
	free(perm);
	free(g.first);
	free(g.child);
	return status;
}
