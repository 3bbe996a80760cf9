/* Writes the page types of src/lib/pagetype.c for the cycle scripts, one
 * a line: the name, then 1 if the type is ranked (it has a row in the
 * importance stream), else 0.  The Makefile runs it into page-types.tsv,
 * which sits beside cycle.mk, so that wa-dist keeps no list of its own. */
#include <stdio.h>

#include "pagetype.h"
#include "wa.h"

int
main(int argc, char **argv)
{
	wa_init(argc, argv, NULL);
	for (int t = 0; t < PAGE_TYPES; t++)
		printf("%s\t%d\n", page_type_names[t], page_type_ranked(t));
	if (fflush(stdout) == EOF || ferror(stdout))
		wa_die_errno("standard output");
	return WA_EXIT_OK;
}
