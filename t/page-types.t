#!/bin/sh
# The page types, the XML-suspect rule and the rules of what is a page
# (src/lib/pagetype.c) against hand-made cases (t/unit/test-pagetype.c).
. "$(dirname "$0")/lib.sh"
unit test-pagetype
done_testing
