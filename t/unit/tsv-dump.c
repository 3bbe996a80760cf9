/* Test helper for t/tsv-reader.t: reads one TSV stream with the reader of
 * src/lib/tsv.c and prints what it saw, one row a line:
 *   LINE<TAB>[field][field]...
 * then "rows N rejected M".  Options set the reader's checks:
 *   -c MIN -C MAX  column counts    -u COL  URL column (1-based)
 *   -s COL  sorted column           -U  ... and unique
 *   -S  strict                      -l BYTES  maximum line length */
#include <getopt.h>
#include <stdio.h>

#include "wa.h"

int
main(int argc, char **argv)
{
	size_t min = 1, max = 0, maxline = 0;
	long url = 0, sorted = 0;
	bool unique = false;
	unsigned flags = 0;
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	int c;

	wa_init(argc, argv, "usage: tsv-dump [-c MIN] [-C MAX] [-u COL] [-s COL] [-U] [-S] [-l BYTES] [FILE]\n");
	while ((c = getopt_long(argc, argv, "c:C:u:s:USl:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': min = opt_count("-c", optarg, 1, 100); break;
		case 'C': max = opt_count("-C", optarg, 0, 100); break;
		case 'u': url = (long)opt_count("-u", optarg, 1, 64); break;
		case 's': sorted = (long)opt_count("-s", optarg, 1, 100); break;
		case 'U': unique = true; break;
		case 'S': flags |= TSV_STRICT; break;
		case 'l': maxline = opt_size("-l", optarg); break;
		default: wa_common_option(c);
		}
	}
	struct tsv *t = tsv_open(argv[optind], min, max, flags);
	if (url)
		tsv_check_url(t, (size_t)url - 1);
	if (sorted)
		tsv_check_sorted(t, (size_t)sorted - 1, unique);
	if (maxline)
		tsv_set_max_line(t, maxline);
	while (tsv_next(t)) {
		printf("%llu\t", (unsigned long long)t->line);
		for (size_t i = 0; i < t->ncol; i++)
			printf("[%s]", t->col[i]);
		putchar('\n');
	}
	printf("rows %llu rejected %llu\n", (unsigned long long)t->rows,
	    (unsigned long long)t->rejected);
	tsv_close(t);
	return 0;
}
