/* Memory for the tables that are read at random, larger than the caches
 * (linkmat.h). */
#include <sys/mman.h>

#include "linkmat.h"
#include "wa.h"

/* On pages of 4K each access would miss the TLB too: huge pages where the
 * system has them.  The system zeroes the pages. */
void *
random_access_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wa_die_errno("cannot allocate %zu bytes", bytes);
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

void
random_access_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}
