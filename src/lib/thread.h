/* Worker threads with a small stack.
 *
 * glibc gives a thread a stack of RLIMIT_STACK bytes (8 MiB by default),
 * all of it address space from the start: under a hard address-space limit
 * (ulimit -v) a few threads would take more than a tool's whole memory
 * budget (-m).  wa's threads keep their data on the heap, within the
 * budget, and need little stack. */
#ifndef WA_THREAD_H
#define WA_THREAD_H

#include <pthread.h>

#define WA_THREAD_STACK (1u << 20)

/* pthread_create with a stack of WA_THREAD_STACK bytes; returns 0 or an
 * errno value, as pthread_create does. */
int wa_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
