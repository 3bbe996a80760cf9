#!/bin/sh
# The library pieces of wa-fetch: decoded-size counting (t/unit/test-decoded.c)
# and the politeness queues (t/unit/test-sites.c).  The address classes are
# in t/protocols.t, the string map in t/strmap.t.
. "$(dirname "$0")/lib.sh"
unit test-decoded
unit test-sites
done_testing
