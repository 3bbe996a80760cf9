#!/bin/sh
. "$(dirname "$0")/lib.sh"
unit test-url
done_testing
