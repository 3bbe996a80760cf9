# wa: web acquisition toolchain.  See README and man/wa.7.
#
#   make                 build bin/wa-*
#   make check           build and run the test suite (prove t/)
#   make check SANITIZE=1   the same suite with ASan+UBSan builds
#   make check VALGRIND=1   the same suite with every tool under valgrind
#   make demo            run the demonstration on the embedded test web
#   make fuzz FUZZ_SECONDS=N   run each libFuzzer target N seconds (t/fuzz.mk)
#   make deps            install missing Debian packages (needs root)
#   make install PREFIX=/usr/local
#   make clean

VERSION   = 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
PKGS      = libcurl libxml-2.0 openssl zlib libdeflate libbrotlidec libpsl libidn2

CC       ?= gcc
CSTD      = -std=c11 -D_GNU_SOURCE
WARN      = -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla
HARDEN    = -fstack-protector-strong -fPIE -D_FORTIFY_SOURCE=2
LDHARDEN  = -pie -Wl,-z,relro,-z,now
OPT       = -O2 -g

ifeq ($(SANITIZE),1)
OPT       = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
HARDEN    = -fPIE
LDHARDEN  = -pie -fsanitize=address,undefined
BUILD    ?= build/san
BINDIR   ?= build/san/bin
else
BUILD    ?= build/opt
BINDIR   ?= bin
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS   += $(CSTD) $(OPT) $(WARN) $(HARDEN) $(PKG_CFLAGS) -Isrc/lib -DWA_VERSION='"$(VERSION)"' -MMD -MP
# --as-needed: a tool loads only the libraries it calls (the ranking tools
# start without libcurl's thirty), which makes each start several times faster.
LDFLAGS  += $(LDHARDEN) -Wl,--as-needed
LDLIBS   += $(PKG_LIBS) -lunistring -lm -lpthread

LIB_SRC   = $(wildcard src/lib/*.c)
LIB_OBJ   = $(LIB_SRC:src/lib/%.c=$(BUILD)/lib/%.o)
LIB       = $(BUILD)/libwa.a
TOOL_SRC  = $(wildcard src/wa-*.c)
TOOLS     = $(TOOL_SRC:src/%.c=$(BINDIR)/%)
# A tool too big for one file keeps the rest of its code in a folder named
# after it: wa-linkmat links src/wa-linkmat.c and src/linkmat/*.c.
TOOL_PART_SRC = $(filter-out src/lib/%,$(wildcard src/*/*.c))
TOOL_PART_OBJ = $(TOOL_PART_SRC:src/%.c=$(BUILD)/%.o)
tool_parts    = $(filter $(BUILD)/$(1)/%,$(TOOL_PART_OBJ))
# t/unit holds the C programs of the suite: test-UNIT.c is the TAP unit test
# of src/lib/UNIT.c; the others are programs that test scripts drive.
# html-oracle, which compares the HTML tokenizer with Gumbo's parser, is
# built only where libgumbo is (scripts/deps installs it).
GUMBO_LIBS := $(shell pkg-config --libs gumbo 2>/dev/null)
UNIT_SRC  = $(filter-out $(if $(GUMBO_LIBS),,t/unit/html-oracle.c),$(wildcard t/unit/*.c))
UNITS     = $(UNIT_SRC:t/unit/%.c=$(BUILD)/t/%)
MANS      = $(wildcard man/*.[157])
# The simulators, scripts/crawl-docs and scripts/first-contact run from the
# source tree, and their pages stay there: only the pages of wa(7),
# wa-formats(5) and the installed programs are installed, and these name no
# other page of man/ (t/install.t checks both).
INSTALL_MANS = $(wildcard man/wa*.[157])
SCRIPTS   = $(wildcard src/cycle/wa-*)
# The page types as the cycle scripts read them, written from
# src/lib/pagetype.c by src/cycle/page-types.c beside cycle.mk.
PAGE_TYPES_TSV = src/cycle/page-types.tsv
SCRIPT_PROGS = $(patsubst scripts/%.c,$(BUILD)/scripts/%,$(wildcard scripts/*.c))

all: $(TOOLS) $(UNITS) $(SCRIPT_PROGS) $(PAGE_TYPES_TSV)

$(BUILD)/lib/%.o: src/lib/%.c | $(BUILD)/lib
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/%.o: src/%.c | $(BUILD)/lib
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/t/%.o: t/unit/%.c | $(BUILD)/t
	$(CC) $(CFLAGS) -It/unit -c -o $@ $<
$(LIB): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
.SECONDEXPANSION:
$(BINDIR)/wa-%: $(BUILD)/wa-%.o $$(call tool_parts,$$*) $(LIB) | $(BINDIR)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)
$(BUILD)/t/%: $(BUILD)/t/%.o $(LIB) | $(BUILD)/t
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/t/html-oracle: $(BUILD)/t/html-oracle.o $(LIB) | $(BUILD)/t
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) $(GUMBO_LIBS)
# Helper programs of scripts/ (gen-graph for bench-rank and the tests).
$(BUILD)/scripts/%: scripts/%.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
-include $(SCRIPT_PROGS:=.d)
$(BUILD)/cycle/page-types: $(BUILD)/cycle/page-types.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
$(PAGE_TYPES_TSV): $(BUILD)/cycle/page-types
	$< >$@
$(BUILD)/lib $(BUILD)/t $(BINDIR):
	mkdir -p $@

-include $(LIB_OBJ:.o=.d) $(TOOL_SRC:src/%.c=$(BUILD)/%.d) $(TOOL_PART_OBJ:.o=.d) \
    $(UNIT_SRC:t/unit/%.c=$(BUILD)/t/%.d)

# The suite runs the tools from WA_BIN and the unit tests from WA_UNIT.
# VALGRIND=1 puts a directory of valgrind wrappers in front instead.  A
# sanitizer or valgrind finding exits 98 or 99, which no test expects.
ifeq ($(VALGRIND),1)
CHECK_BIN  = build/vg/bin
CHECK_UNIT = build/vg/t
else
CHECK_BIN  = $(BINDIR)
CHECK_UNIT = $(BUILD)/t
endif
# Tests spend much of their time waiting on servers, timeouts and delays:
# two jobs a processor keep the processors busy; under valgrind, which is
# all computing, one more job than processors.
NPROC      := $(shell nproc 2>/dev/null || echo 1)
PROVE_JOBS ?= $(if $(filter 1,$(VALGRIND)),$(shell echo $$(($(NPROC) + 1))),$(shell echo $$((2 * $(NPROC)))))
# The longest test files first, so that the jobs end together: last in
# name order, wa-pagerank.t alone took the final 4 minutes under valgrind.
SLOW_TESTS = t/wa-pagerank.t t/wa-linkmat.t t/wa-invrank.t
TESTS      = $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard t/*.t)))

# deps-check may install the libraries that pkg-config reports above, so the
# rest runs in a fresh make that sees them.
check: deps-check
	@$(MAKE) --no-print-directory check-run
check-run: all lint t/warcio/node_modules/.bin/warcio $(if $(filter 1,$(VALGRIND)),vg-wrappers)
	WA_BIN=$(abspath $(CHECK_BIN)) WA_UNIT=$(abspath $(CHECK_UNIT)) \
	    ASAN_OPTIONS=exitcode=98 UBSAN_OPTIONS=print_stacktrace=1:exitcode=98 \
	    prove -j$(PROVE_JOBS) --timer $(TESTS)

# warcio.js, the WARC reader by others that t/warc-lib.sh checks our files
# with, pinned by its lock file.
t/warcio/node_modules/.bin/warcio: t/warcio/package.json t/warcio/package-lock.json
	npm ci --prefix t/warcio --no-audit --no-fund
	touch $@

vg-wrappers: all
	scripts/mk-valgrind-wrappers $(BINDIR) build/vg/bin $(BUILD)/t build/vg/t

lint:
	@command -v mandoc >/dev/null || { echo "lint: needs mandoc (scripts/deps install)" >&2; exit 1; }
	$(if $(MANS),mandoc -Tlint -Wwarning $(MANS))

demo: deps-check
	@$(MAKE) --no-print-directory all
	scripts/demo

deps:
	scripts/deps install
deps-check:
	@scripts/deps check || scripts/deps install

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(TOOLS) $(SCRIPTS) $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(PREFIX)/share/wa
	install -m 644 src/cycle/cycle.mk src/cycle/cycle-lib.sh $(PAGE_TYPES_TSV) $(DESTDIR)$(PREFIX)/share/wa
	for m in $(INSTALL_MANS); do \
	    s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s; done

clean:
	rm -rf build bin $(PAGE_TYPES_TSV)

include t/fuzz.mk

.PHONY: all check check-run lint demo deps deps-check install clean vg-wrappers \
    fuzz fuzz-build
.DELETE_ON_ERROR:
.SECONDARY:
