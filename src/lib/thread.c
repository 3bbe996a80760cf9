/* Worker threads with a small stack (thread.h). */
#include <pthread.h>

#include "thread.h"

int
wa_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc != 0)
		return rc;
	rc = pthread_attr_setstacksize(&attr, WA_THREAD_STACK);
	if (rc == 0)
		rc = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}
