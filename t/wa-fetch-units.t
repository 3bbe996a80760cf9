#!/bin/sh
# The library pieces of wa-fetch: address classes, decoded-size counting,
# the string map and the politeness queues (t/unit/test-fetch-lib.c).
. "$(dirname "$0")/lib.sh"
unit test-fetch-lib
done_testing
