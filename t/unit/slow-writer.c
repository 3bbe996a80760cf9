/* Not a TAP program: the helper of t/atomic-output.t, which kills it
 * while it writes a binary file slowly. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binfile.h"
#include "msg.h"
#include "opt.h"

static const char usage[] =
    "usage: slow-writer write PATH RECORDS CHUNKS SLEEP_MS SEED [DIE_AFTER]\n"
    "       slow-writer check PATH\n"
    "write: CHUNKS chunks of RECORDS u64 records each, SLEEP_MS apart, as a\n"
    "'TST8' file; with DIE_AFTER it dies (wa_die) after that many chunks.\n"
    "check: verifies such a file with both readers and prints its record count.\n";

/* Distinct values everywhere, so that a shifted or stale byte shows. */
static uint64_t
value(uint64_t seed, uint64_t i)
{
	return seed * UINT64_C(0x9e3779b97f4a7c15) + i;
}

static void
write_slowly(char **argv, int argc)
{
	const char *path = argv[2];
	uint64_t records = opt_count("RECORDS", argv[3], 1, 1 << 24);
	uint64_t chunks = opt_count("CHUNKS", argv[4], 0, 1 << 20);
	uint64_t ms = opt_count("SLEEP_MS", argv[5], 0, 60000);
	uint64_t seed = opt_count("SEED", argv[6], 0, UINT32_MAX);
	uint64_t die_after = argc > 7 ? opt_count("DIE_AFTER", argv[7], 0, chunks) : UINT64_MAX;

	uint64_t *buf = wa_reallocarray(NULL, records, sizeof *buf);
	struct timespec nap = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };
	struct bin_writer *w = bin_create(path, "TST8", 1);
	for (uint64_t c = 0; c < chunks; c++) {
		if (c == die_after)
			wa_die("%s: dying after %" PRIu64 " chunks, as asked", path, c);
		for (uint64_t i = 0; i < records; i++)
			buf[i] = value(seed, c * records + i);
		bin_write(w, buf, records * sizeof *buf);
		nanosleep(&nap, NULL);
	}
	bin_commit(w, chunks * records, (const uint64_t[3]){ seed, chunks, records });
	free(buf);
}

static void
check(const char *path)
{
	struct bin_map m;
	const char *msg;
	if ((msg = bin_map_open(&m, path, "TST8", 1, 8)))
		wa_die("%s", msg);
	const uint64_t *v = m.data;
	for (uint64_t i = 0; i < m.h.count; i++)
		if (v[i] != value(m.h.aux[0], i))
			wa_die("%s: record %" PRIu64 " is not what was written", path, i);

	struct bin_reader r;
	uint64_t block[1000];
	size_t got, n = 0;
	if ((msg = bin_reader_open(&r, path, "TST8", 1, 8)))
		wa_die("%s", msg);
	while (!(msg = bin_read(&r, block, sizeof block, &got)) && got > 0)
		for (size_t i = 0; i < got / 8; i++, n++)
			if (block[i] != v[n])
				wa_die("%s: streaming record %zu differs", path, n);
	if (msg)
		wa_die("%s", msg);
	printf("%" PRIu64 " records\n", m.h.count);
	bin_reader_close(&r);
	bin_map_close(&m);
}

int
main(int argc, char **argv)
{
	wa_init(argc, argv, usage);
	if (argc >= 7 && argc <= 8 && strcmp(argv[1], "write") == 0)
		write_slowly(argv, argc);
	else if (argc == 3 && strcmp(argv[1], "check") == 0)
		check(argv[2]);
	else
		wa_usage_error("bad arguments");
	return WA_EXIT_OK;
}
