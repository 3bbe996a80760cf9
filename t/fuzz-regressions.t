#!/bin/sh
# The inputs that once crashed a fuzz target (testdata/fuzz/regressions)
# and the seed corpora (testdata/fuzz/TARGET), replayed through the
# targets' own invariant checks (t/fuzz/*.c) in this build, which needs no
# clang: see t/unit/fuzz-replay.c.  Then, where a tool can reach it,
# what a regression was about, on the value the standard gives.
. "$(dirname "$0")/lib.sh"

FUZZ_REGRESSIONS=$TESTDATA/fuzz/regressions FUZZ_SEEDS=$TESTDATA/fuzz
export FUZZ_REGRESSIONS FUZZ_SEEDS
unit fuzz-replay

# url-hex-ipv4-fast-path: a last label "0x7" is a hexadecimal number, so
# the host is the IPv4 address 0.0.0.7 (WHATWG URL, "IPv4 parser"); the
# fast path for canonical input had taken it for a name.
is "$(printf 'http://0x7/f.1/\n' | wa-url -q)" "http://0.0.0.7/f.1/" \
    "wa-url: host 0x7 is the IPv4 address 0.0.0.7"

done_testing
