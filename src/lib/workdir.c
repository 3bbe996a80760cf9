#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "msg.h"
#include "workdir.h"

/* Read by the signal handler: fixed storage, no allocation. */
static char dir[PATH_MAX];
static volatile sig_atomic_t live;
#define MAX_CHILDREN 8
static volatile pid_t children[MAX_CHILDREN];

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Removes a file or a directory tree.  Async-signal-safe, for the signal
 * handler: raw getdents64 instead of readdir, which allocates. */
static void
remove_tree_at(int parent, const char *name, int depth)
{
	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT || depth > 8)
		return;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Entries removed while the directory is read may hide others:
	 * read it again until it is empty. */
	for (int pass = 0; pass < 4; pass++) {
		char buf[4096] __attribute__((aligned(8)));
		long n;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
			for (long off = 0; off < n;) {
				struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
				off += d->d_reclen;
				if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
					remove_tree_at(fd, d->d_name, depth + 1);
			}
		if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
			break;
	}
	close(fd);
}

static void
stop_children(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		pid_t p = children[i];
		if (p > 0) {
			kill(p, SIGTERM);
			while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
				;
			children[i] = 0;
		}
	}
}

static void
cleanup(void)
{
	int err = errno;
	stop_children();
	if (live) {
		remove_tree_at(AT_FDCWD, dir, 0);
		live = 0;
	}
	errno = err;
}

/* On an error or a signal, atomic.h's handlers run cleanup; at a normal
 * exit atexit does. */
static void
install_cleanup(void)
{
	static bool installed;
	if (installed)
		return;
	installed = true;
	atomic_at_abort(cleanup);
	atexit(cleanup);
}

static void
check_replaceable(const char *target, const char *marker)
{
	struct stat st;
	if (lstat(target, &st) != 0) {
		if (errno == ENOENT)
			return;
		wa_die_errno("%s", target);
	}
	if (!S_ISDIR(st.st_mode))
		wa_die("%s: exists and is not a directory", target);
	char *path = wa_asprintf("%s/%s", target, marker);
	bool ours = access(path, F_OK) == 0;
	free(path);
	if (ours)
		return;
	DIR *d = opendir(target);
	if (!d)
		wa_die_errno("%s", target);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			wa_die("%s: exists and is not what this tool writes (no %s): "
			    "remove it or choose another name", target, marker);
	closedir(d);
}

void
workdir_create(const char *target, const char *marker)
{
	check_replaceable(target, marker);
	install_cleanup();
	char *d = wa_strdup(target), *b = wa_strdup(target);
	int n = snprintf(dir, sizeof dir, "%s/.%s.XXXXXX", dirname(d), basename(b));
	free(d);
	free(b);
	if (n < 0 || (size_t)n >= sizeof dir)
		wa_die("%s: path too long", target);
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	bool made = mkdtemp(dir) != NULL;
	live = made;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!made)
		wa_die_errno("%s: cannot create a directory beside it", target);
	if (chmod(dir, 0777 & ~umask_value()) != 0)
		wa_die_errno("%s", dir);
	atomic_defer_dir_sync(dir);
}

const char *
workdir_path(void)
{
	return dir;
}

char *
workdir_file(const char *name)
{
	return wa_asprintf("%s/%s", dir, name);
}

void
workdir_install(const char *target, const char *marker)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0)
		wa_die_errno("%s: cannot sync", dir);
	close(fd);
	atomic_defer_dir_sync(NULL);
	if (renameat2(AT_FDCWD, dir, AT_FDCWD, target, RENAME_NOREPLACE) == 0) {
		live = 0;
	} else {
		if (errno != EEXIST)
			wa_die_errno("%s: cannot move %s into place", target, dir);
		check_replaceable(target, marker);
		if (renameat2(AT_FDCWD, dir, AT_FDCWD, target, RENAME_EXCHANGE) != 0)
			wa_die_errno("%s: cannot exchange it with %s", target, dir);
		/* dir now holds the old output. */
		remove_tree_at(AT_FDCWD, dir, 0);
		live = 0;
	}
	fsync_parent_dir(target);
}

void
workdir_add_child(pid_t pid)
{
	install_cleanup();
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (!children[i]) {
			children[i] = pid;
			return;
		}
	wa_die("internal error: more than %d child processes", MAX_CHILDREN);
}

void
workdir_remove_child(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}
