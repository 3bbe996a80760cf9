#!/bin/sh
# The external sort of src/lib/extsort.h against qsort (t/unit/test-extsort.c).
. "$(dirname "$0")/lib.sh"
unit test-extsort
done_testing
