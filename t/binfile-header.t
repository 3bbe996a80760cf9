#!/bin/sh
# The binary file format of src/lib/binfile.c: the header layout, both
# readers, and a specific message for every kind of damage.
. "$(dirname "$0")/lib.sh"
unit test-binfile
done_testing
