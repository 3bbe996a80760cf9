/* Test helper for t/progress.t: counts to N items, sleeping MICROSECONDS
 * after each, with the progress line of src/lib/progress.c.
 *   test-progress [-q] [-t] N MICROSECONDS
 * -t announces the total; the tool's note shows the item count squared. */
#include <getopt.h>
#include <unistd.h>

#include "wa.h"

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { WA_COMMON_LONGOPTS };
	bool total = false;
	int c;

	wa_init(argc, argv, "usage: test-progress [-q] [-t] N MICROSECONDS\n");
	while ((c = getopt_long(argc, argv, "hqt", longopts, NULL)) != -1) {
		if (c == 't')
			total = true;
		else
			wa_common_option(c);
	}
	if (argc - optind != 2)
		wa_usage_error("two arguments expected");
	uint64_t n = opt_count("N", argv[optind], 1, 1000000);
	uint64_t pause = opt_count("MICROSECONDS", argv[optind + 1], 0, 10000000);
	struct progress pg;
	progress_start(&pg, "items", total ? n : 0);
	for (uint64_t i = 1; i <= n; i++) {
		usleep((useconds_t)pause);
		if (i % 10 == 0)
			progress_note(&pg, "square %llu", (unsigned long long)(i * i));
		progress_set(&pg, i);
	}
	progress_end(&pg);
	return 0;
}
