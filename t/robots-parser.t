#!/bin/sh
# robots.txt parsing and matching (src/lib/robots.c): RFC 9309 and the
# facts of Google's robots.txt parser tests, in the C unit test.
. "$(dirname "$0")/lib.sh"
unit test-robots
done_testing
