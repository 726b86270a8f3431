// SPDX-License-Identifier: GPL-2.0-only
//
// The kernel as core/ and drivers/ see it, the parts that are not RDMA:
// module references, the allocators (counted, and poisoned as slub_debug
// does), WARN, mutexes, strings, module parameters and the work queue.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "hca.h"

namespace {

bool alloc_poison = true;

// Every live allocation and its size: kfree() of anything else aborts.
std::unordered_map<const void *, size_t> &allocations()
{
	static std::unordered_map<const void *, size_t> m;
	return m;
}

void *track(void *p, size_t size)
{
	if (p) {
		allocations()[p] = size;
		sim::counters().kmalloc_live++;
	}
	return p;
}

} // namespace

void sim::set_alloc_poison(bool on)
{
	alloc_poison = on;
}

struct module mirror_this_module;

extern "C" bool try_module_get(struct module *m)
{
	m->refcnt++;
	sim::counters().module_refs++;
	return true;
}

extern "C" void module_put(struct module *m)
{
	m->refcnt--;
	sim::counters().module_refs--;
}

extern "C" void *mirror_kzalloc(size_t size)
{
	return track(std::calloc(1, size ? size : 1), size);
}

extern "C" void *mirror_kmalloc(size_t size)
{
	void *p = std::malloc(size ? size : 1);

	if (p && alloc_poison)
		std::memset(p, 0xa5, size);
	return track(p, size);
}

extern "C" void kfree(const void *p)
{
	if (!p)
		return;
	if (!allocations().erase(p)) {
		std::fprintf(stderr, "mirror: kfree of unknown pointer %p\n",
			     p);
		std::abort();
	}
	sim::counters().kmalloc_live--;
	std::free(const_cast<void *>(p));
}

extern "C" void mirror_warn(const char *cond, const char *file, int line)
{
	std::fprintf(stderr, "mirror: WARNING: %s at %s:%d\n", cond, file,
		     line);
	sim::counters().warnings++;
}

// One thread: a mutex taken twice is a deadlock the kernel would hit.
extern "C" void mutex_lock(struct mutex *m)
{
	if (m->held++) {
		std::fprintf(stderr, "mirror: mutex re-entered\n");
		std::abort();
	}
}

extern "C" void mutex_unlock(struct mutex *m)
{
	m->held--;
}

extern "C" ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		std::memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	std::memcpy(dst, src, len + 1);
	return static_cast<ssize_t>(len);
}

extern "C" char *strim(char *s)
{
	size_t n = std::strlen(s);

	while (n && std::isspace(static_cast<unsigned char>(s[n - 1])))
		s[--n] = '\0';
	while (*s && std::isspace(static_cast<unsigned char>(*s)))
		s++;
	return s;
}

// Module parameters are set by the tests directly, never through these.
extern "C" int param_set_copystring(const char *val,
				    const struct kernel_param *kp)
{
	return 0;
}

extern "C" int param_get_string(char *buffer, const struct kernel_param *kp)
{
	return 0;
}

// The work queue runs nothing by itself: flush_work() runs what is pending.
extern "C" bool schedule_work(struct work_struct *work)
{
	bool was = work->pending;

	work->pending = true;
	return !was;
}

extern "C" bool flush_work(struct work_struct *work)
{
	if (!work->pending)
		return false;
	work->pending = false;
	work->func(work);
	return true;
}

extern "C" struct workqueue_struct *alloc_workqueue(const char *name,
						   unsigned int flags,
						   int max_active)
{
	auto *wq = static_cast<workqueue_struct *>(
		mirror_kzalloc(sizeof(workqueue_struct)));

	wq->flags = flags;
	return wq;
}

extern "C" void destroy_workqueue(struct workqueue_struct *wq)
{
	kfree(wq);
}
