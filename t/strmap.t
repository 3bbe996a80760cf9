#!/bin/sh
# The string map of src/lib/strmap.c, which wa-fetch, wa-partition and
# wa-opic share (t/unit/test-strmap.c).
. "$(dirname "$0")/lib.sh"
unit test-strmap
done_testing
