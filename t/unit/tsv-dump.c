/* Test helper for t/tsv-reader.t: reads one TSV stream with the reader of
 * src/lib/tsv.c and prints what it saw, one row a line:
 *   LINE<TAB>[field][field]...
 * then "rows N rejected M".  Options set the reader's checks:
 *   -c MIN -C MAX  column counts    -u COL  URL column (1-based)
 *   -s COL  sorted column           -U  ... and unique
 *   -S  strict                      -l BYTES  maximum line length
 *   -b BYTES  read blocks of about BYTES with tsv_next_block and split
 *             their lines with tsv_split, as a threaded reader does: the
 *             output must be that of tsv_next */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wa.h"

static void
print_row(const struct tsv *t, char *const *col, size_t ncol)
{
	printf("%llu\t", (unsigned long long)t->line);
	for (size_t i = 0; i < ncol; i++)
		printf("[%s]", col[i]);
	putchar('\n');
}

static void
dump_blocks(struct tsv *t, size_t want)
{
	struct tsv_block b;
	struct tsv_row row = { 0 };
	char why[TSV_WHY_SIZE], *copy = NULL;
	while (tsv_next_block(t, want, &b)) {
		if (b.long_line) {
			t->line++;
			tsv_reject(t, "%s", tsv_split(t, NULL, SIZE_MAX, &row, why));
			continue;
		}
		copy = wa_realloc(copy, b.len + 1);
		memcpy(copy, b.text, b.len);
		for (char *s = copy, *end = copy + b.len; s < end;) {
			char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
			t->line++;
			const char *bad = tsv_split(t, s, len, &row, why);
			s += len + 1;
			if (bad) {
				tsv_reject(t, "%s", bad);
				continue;
			}
			t->rows++;
			print_row(t, row.col, row.ncol);
		}
	}
	free(copy);
	tsv_row_free(&row);
}

int
main(int argc, char **argv)
{
	size_t min = 1, max = 0, maxline = 0, block = 0;
	long url = 0, sorted = 0;
	bool unique = false;
	unsigned flags = 0;
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	int c;

	wa_init(argc, argv, "usage: tsv-dump [-c MIN] [-C MAX] [-u COL] [-s COL] [-U] [-S] [-l BYTES] [-b BYTES] [FILE]\n");
	while ((c = getopt_long(argc, argv, "c:C:u:s:USl:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': min = opt_count("-c", optarg, 1, 100); break;
		case 'C': max = opt_count("-C", optarg, 0, 100); break;
		case 'u': url = (long)opt_count("-u", optarg, 1, 64); break;
		case 's': sorted = (long)opt_count("-s", optarg, 1, 100); break;
		case 'U': unique = true; break;
		case 'S': flags |= TSV_STRICT; break;
		case 'l': maxline = opt_size("-l", optarg); break;
		case 'b': block = opt_size("-b", optarg); break;
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
	if (block)
		dump_blocks(t, block);
	else
		while (tsv_next(t))
			print_row(t, t->col, t->ncol);
	printf("rows %llu rejected %llu\n", (unsigned long long)t->rows,
	    (unsigned long long)t->rejected);
	tsv_close(t);
	return 0;
}
