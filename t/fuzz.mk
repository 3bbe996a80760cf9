# Fuzzing: `make fuzz FUZZ_SECONDS=N` builds the libFuzzer
# targets of t/fuzz/ with clang, ASan and UBSan, and runs each for N seconds
# on a copy of its seed corpus testdata/fuzz/TARGET, one at a time.  The
# library is compiled again by clang into $(FUZZ_BUILD), apart from the
# gcc build.  scripts/fuzz-report runs the targets and writes the figures
# to $(FUZZ_BUILD)/fuzz-report.tsv; it fails if a target crashed.  The
# corpora, the regressions and the report are described in
# testdata/fuzz/README.

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build/fuzz
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= $(patsubst t/fuzz/%.c,%,$(wildcard t/fuzz/*.c))
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = $(CSTD) -O1 -g -fno-omit-frame-pointer $(PKG_CFLAGS) -Isrc/lib \
    -DWA_VERSION='"$(VERSION)"' -MMD -MP
FUZZ_LIB_OBJ  = $(LIB_SRC:src/lib/%.c=$(FUZZ_BUILD)/lib/%.o)
FUZZ_LIB      = $(FUZZ_BUILD)/libwa.a
FUZZ_BINS     = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)

# clang and its libFuzzer runtime are in scripts/deps.
fuzz: deps-check
	@$(MAKE) --no-print-directory fuzz-run
fuzz-run: $(FUZZ_BINS)
	scripts/fuzz-report -s $(FUZZ_SECONDS) -o $(FUZZ_BUILD)/fuzz-report.tsv \
	    $(FUZZ_BUILD) $(FUZZ_TARGETS)
fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_BUILD)/%: t/fuzz/%.c $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) -It/fuzz -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< \
	    $(FUZZ_LIB) $(PKG_LIBS) -lunistring -lm -lpthread

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BINS:=.d)

.PHONY: fuzz-run
