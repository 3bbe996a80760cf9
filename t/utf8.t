#!/bin/sh
# The UTF-8 check of src/lib/utf8.h, which the TSV reader, wa-fetch's URL
# lists and wa-extract's repair of HTML pages share (t/unit/test-utf8.c).
. "$(dirname "$0")/lib.sh"
unit test-utf8
done_testing
