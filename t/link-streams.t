#!/bin/sh
# The links and pages streams (src/lib/linkstream.c): rows written and read
# back, the how and type columns, the rows refused (t/unit/test-linkstream.c).
. "$(dirname "$0")/lib.sh"
unit test-linkstream
done_testing
