#!/bin/sh
# The teams of worker threads of src/lib/thread.c, which wa-pagerank and
# wa-invrank run their steps on (t/unit/test-thread.c).
. "$(dirname "$0")/lib.sh"
unit test-thread
done_testing
