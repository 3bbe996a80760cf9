#!/bin/sh
# The binary heaps of src/lib/heap.h (t/unit/test-heap.c).
. "$(dirname "$0")/lib.sh"
unit test-heap
done_testing
