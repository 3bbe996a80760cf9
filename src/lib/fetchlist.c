/* Reading and writing fetch lists (see fetchlist.h). */
#include <inttypes.h>

#include "fetchlist.h"

void
fetchlist_write(FILE *fp, const char *url, const char *reason, uint64_t priority,
    int64_t due)
{
	fprintf(fp, "%s\t%s\t%" PRIu64 "\t", url, reason, priority);
	if (due < 0)
		fputs("-\n", fp);
	else
		fprintf(fp, "%" PRId64 "\n", due);
}

struct tsv *
fetchlist_open(const char *path)
{
	return tsv_open(path, FETCHLIST_URL + 1, 0, 0);
}
