/* The robots.txt cache directory (see robotscache.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "msg.h"
#include "robots.h"
#include "robotscache.h"

static char *
entry_path(const char *dir, const char *origin)
{
	char *name = wa_asprintf("%s/%s", dir, origin);
	char *p = name + strlen(dir) + 1;
	char *sep = strstr(p, "://");
	if (sep)
		memmove(sep + 1, sep + 3, strlen(sep + 3) + 1);
	for (; *p; p++)
		if (*p == ':' || *p == '/' || *p == '[' || *p == ']')
			*p = '_';
	return name;
}

bool
robotscache_load(const char *dir, const char *origin, int64_t now,
    int *status, char **body, size_t *len)
{
	char *path = entry_path(dir, origin);
	FILE *fp = fopen(path, "rb");
	bool fresh = false;
	int64_t when;

	*body = NULL;
	*len = 0;
	if (!fp) {
		if (errno != ENOENT)
			wa_warn("%s: %s", path, strerror(errno));
		free(path);
		return false;
	}
	if (fscanf(fp, "wa-robots 1 %" SCNd64 " %d", &when, status) != 2 ||
	    getc(fp) != '\n' || *status < 200 || *status > 499) {
		wa_warn("%s: not a robots cache entry; fetching again", path);
		goto out;
	}
	if (when > now || now - when >= ROBOTSCACHE_MAX_AGE)
		goto out;
	char *buf = wa_malloc(ROBOTS_MAX_BYTES + 1);
	*len = fread(buf, 1, ROBOTS_MAX_BYTES + 1, fp);
	if (ferror(fp)) {
		wa_warn("%s: %s", path, strerror(errno));
		free(buf);
		*len = 0;
		goto out;
	}
	*body = buf;
	fresh = true;
out:
	fclose(fp);
	free(path);
	return fresh;
}

bool
robotscache_store(const char *dir, const char *origin, int64_t now,
    int status, const char *body, size_t len)
{
	char *path = entry_path(dir, origin);
	char *tmp = wa_asprintf("%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "wb");
	bool ok = fp && fchmod(fd, 0666 & ~umask_value()) == 0 &&
	    fprintf(fp, "wa-robots 1 %" PRId64 " %d\n", now, status) > 0 &&
	    fwrite(body, 1, len, fp) == len && fflush(fp) == 0;
	int err = errno;
	if (fp ? fclose(fp) != 0 : fd >= 0 && close(fd) != 0)
		ok = false;
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		wa_warn("%s: %s", fd < 0 ? path : tmp, strerror(err));
		if (fd >= 0)
			unlink(tmp);
	}
	free(tmp);
	free(path);
	return ok;
}
