// SPDX-License-Identifier: MIT
/*
 * Ending an object while another thread's call uses it. A call that
 * releases the GIL hands libtern handles that another thread may end
 * meanwhile (Device.close, Stream.destroy, Comm.destroy, Buffer.free),
 * and libtern would then use what it freed. So each such call holds
 * every object it uses, from the moment it sees it alive under the GIL
 * until libtern returns; ending an object marks it dead under the GIL,
 * so that no later call holds it, then waits, the GIL released, until no
 * call does. The call in flight completes, or fails as libtern makes it
 * fail; later calls raise tern.Error.
 *
 * Holds are counts on the objects, behind one lock for the module: they
 * change twice a call, and nothing waits on them but an ending.
 */
#include <pthread.h>

#include "pytern.h"

static pthread_mutex_t tern_py_hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tern_py_hold_done = PTHREAD_COND_INITIALIZER;

void tern_py_hold_add(struct tern_py_hold *h, Py_ssize_t *busy)
{
	if (h->n == TERN_PY_HOLD_MAX)
		Py_FatalError("tern: a call holds more objects than TERN_PY_HOLD_MAX");
	pthread_mutex_lock(&tern_py_hold_lock);
	(*busy)++;
	pthread_mutex_unlock(&tern_py_hold_lock);
	h->busy[h->n++] = busy;
}

void tern_py_hold_end(struct tern_py_hold *h)
{
	bool idle = false;

	pthread_mutex_lock(&tern_py_hold_lock);
	for (int i = 0; i < h->n; i++)
		idle |= --*h->busy[i] == 0;
	pthread_mutex_unlock(&tern_py_hold_lock);
	if (idle)
		pthread_cond_broadcast(&tern_py_hold_done);
	h->n = 0;
}

void tern_py_drain(Py_ssize_t *busy)
{
	pthread_mutex_lock(&tern_py_hold_lock);
	while (*busy)
		pthread_cond_wait(&tern_py_hold_done, &tern_py_hold_lock);
	pthread_mutex_unlock(&tern_py_hold_lock);
}
