// SPDX-License-Identifier: GPL-2.0-only
//
// The kernel as core/ and drivers/ see it, the parts that are not RDMA:
// module references, the allocators (counted, and poisoned as slub_debug
// does; in benchmark builds priced as the kernel's), WARN, mutexes,
// strings, module parameters and the work queue.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "hca.h"
#include "shims.h"
#include "work.h"

namespace {

bool alloc_poison = true;

#ifndef MIRROR_BENCH_ALLOC
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
#endif

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

#ifndef MIRROR_BENCH_ALLOC
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
#else
// Benchmark builds (-DMRCORE_BENCH=ON): kmalloc() and kfree() at about the
// kernel's price, not a test's.  Objects come in the kmalloc caches' size
// classes, each class a LIFO free list, as SLUB's per-CPU fast path pops
// and pushes its freelist; a 16-byte header names the class (SLUB finds it
// from the object's slab).  No tracking but the live count the leak report
// reads.  kzalloc()'s zeroing is done by mirror_zero(), whose instructions
// the reports count apart: the kernel zeroes with one rep stosb, which
// valgrind counts once per byte.
namespace {

constexpr size_t kClasses[] = {8,   16,  32,   64,   96,   128, 192,
			       256, 512, 1024, 2048, 4096, 8192};
constexpr u32 kLarge = sizeof(kClasses) / sizeof(kClasses[0]);

struct FreeObj {
	FreeObj *next;
};

struct alignas(16) Header {
	u32 cls;
};

FreeObj *free_list[kLarge];

u32 size_class(size_t size)
{
	u32 c = 0;

	while (c < kLarge && kClasses[c] < size)
		c++;
	return c;
}

void *bench_alloc(size_t size)
{
	u32 c = size_class(size);
	Header *h;

	if (c < kLarge && free_list[c]) {
		FreeObj *o = free_list[c];

		free_list[c] = o->next;
		sim::counters().kmalloc_live++;
		return o;
	}
	/* Whole 8-byte words: mirror_zero() stores no byte past them. */
	h = static_cast<Header *>(std::malloc(sizeof(Header) +
					      (c < kLarge ? kClasses[c] :
							    (size + 7) & ~size_t(7))));
	if (!h)
		return nullptr;
	h->cls = c;
	sim::counters().kmalloc_live++;
	return h + 1;
}

} // namespace

// The zeroing of kzalloc(): eight bytes a store, not a libc memset.
extern "C" noinline
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void mirror_zero(void *p, size_t size)
{
	u64 *q = static_cast<u64 *>(p);

	for (size_t i = 0; i < (size + 7) / 8; i++)
		q[i] = 0;
}

extern "C" void *mirror_kzalloc(size_t size)
{
	void *p = bench_alloc(size);

	if (p)
		mirror_zero(p, size);
	return p;
}

extern "C" void *mirror_kmalloc(size_t size)
{
	return bench_alloc(size);
}

extern "C" void kfree(const void *p)
{
	Header *h;

	if (!p)
		return;
	h = static_cast<Header *>(const_cast<void *>(p)) - 1;
	sim::counters().kmalloc_live--;
	if (h->cls < kLarge) {
		FreeObj *o = static_cast<FreeObj *>(const_cast<void *>(p));

		o->next = free_list[h->cls];
		free_list[h->cls] = o;
		return;
	}
	std::free(h);
}
#endif

extern "C" void mirror_warn(const char *cond, const char *file, int line)
{
	std::fprintf(stderr, "mirror: WARNING: %s at %s:%d\n", cond, file,
		     line);
	sim::counters().warnings++;
}

// PF_MEMALLOC_NOIO, as one flag: save returns the old state, restore
// puts it back, so that scopes nest as the kernel's do.
namespace {
unsigned int noio_flag;
} // namespace

extern "C" unsigned int memalloc_noio_save(void)
{
	unsigned int old = noio_flag;

	noio_flag = 1;
	return old;
}

extern "C" void memalloc_noio_restore(unsigned int flags)
{
	noio_flag = flags;
}

bool sim::noio_scope()
{
	return noio_flag != 0;
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

namespace {

// The queued work, oldest first.
std::deque<work_struct *> &queued_work()
{
	static std::deque<work_struct *> q;

	return q;
}

void dequeue(work_struct *work)
{
	auto &q = queued_work();

	q.erase(std::find(q.begin(), q.end(), work));
	work->pending = false;
}

} // namespace

// The work queue runs nothing by itself: flush_work() runs what is pending,
// and so does sim::run_work(), a worker's turn (sim/work.h).
extern "C" bool schedule_work(struct work_struct *work)
{
	if (work->pending)
		return false;
	work->pending = true;
	queued_work().push_back(work);
	return true;
}

extern "C" bool flush_work(struct work_struct *work)
{
	if (!work->pending)
		return false;
	dequeue(work);
	work->func(work);
	return true;
}

unsigned int sim::run_work()
{
	unsigned int n = 0;

	while (!queued_work().empty()) {
		work_struct *work = queued_work().front();

		dequeue(work);
		work->func(work);
		n++;
	}
	return n;
}

void sim::forget_work()
{
	queued_work().clear();
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
