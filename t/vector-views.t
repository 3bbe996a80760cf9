#!/bin/sh
# The vectors of wa-pagerank and wa-invrank (src/lib/vec.c): whole in
# memory, or in files read and written a range at a time
# (t/unit/test-vec.c).
. "$(dirname "$0")/lib.sh"
unit test-vec
done_testing
