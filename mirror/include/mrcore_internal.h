/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The mirror's kernel: just enough of it for core/ and drivers/ to compile
 * unchanged in userspace.  Same include guard as core/mrcore_internal.h, and
 * force-included first, so the real one becomes empty.
 *
 * Verbs that reach the hardware (MR allocation, page-list mapping, posting,
 * DMA mapping) are declared here and implemented by the shims
 * (sim/shims/) and the simulated HCA (sim/hca.cpp); the allocators and module references are counted so every
 * test can check at teardown that nothing leaked.
 */
#ifndef _MRCORE_INTERNAL_H
#define _MRCORE_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef int32_t s32;
typedef uint64_t dma_addr_t;
typedef unsigned int gfp_t;
typedef u32 __be32;

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & PAGE_MASK)
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

#define __maybe_unused	__attribute__((__unused__))
#ifndef __cplusplus	/* libstdc++ uses these names for its own identifiers */
#define __init
#define __exit
#endif

#define GFP_KERNEL	0u
#define GFP_NOWAIT	1u

/* Module glue: a file-scope statement that expands to nothing harmful. */
#define MIRROR_DECL(tag)	extern int mirror_unused_##tag
#define EXPORT_SYMBOL_GPL(sym)	MIRROR_DECL(export_##sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	MIRROR_DECL(export_##sym)
#define MODULE_LICENSE(x)	MIRROR_DECL(license)
#define MODULE_DESCRIPTION(x)	MIRROR_DECL(description)
#define MODULE_VERSION(x)	MIRROR_DECL(version)
#define MODULE_IMPORT_NS(ns)	MIRROR_DECL(import_ns)
#define module_init(fn)	int mirror_module_init(void) { return fn(); }
#define module_exit(fn)	void mirror_module_exit(void) { fn(); }
int mirror_module_init(void);
void mirror_module_exit(void);

struct module {
	int refcnt;
};
extern struct module mirror_this_module;
#define THIS_MODULE (&mirror_this_module)
bool try_module_get(struct module *m);
void module_put(struct module *m);

/* Allocation, counted by the mirror. */
void *mirror_kzalloc(size_t size);
void *mirror_kmalloc(size_t size);
void kfree(const void *p);
#define kzalloc(size, gfp)	mirror_kzalloc(size)
#define kmalloc(size, gfp)	mirror_kmalloc(size)
#define kcalloc(n, size, gfp)	mirror_kzalloc((n) * (size))
#define kmalloc_array(n, size, gfp)	mirror_kmalloc((n) * (size))
#define kvzalloc(size, gfp)	mirror_kzalloc(size)
#define kvfree(p)		kfree(p)

/* Warnings: counted, so tests can expect one and teardown can refuse one. */
void mirror_warn(const char *cond, const char *file, int line);
#define WARN_ON_ONCE(cond) ({						\
	bool __w = !!(cond);						\
	if (__w)							\
		mirror_warn(#cond, __FILE__, __LINE__);			\
	__w;								\
})
#define WARN_ON(cond)	WARN_ON_ONCE(cond)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define noinline	__attribute__((noinline))
#define fallthrough	__attribute__((__fallthrough__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" : : : "memory")
/* Fails to compile when @cond holds, as the kernel's. */
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))
#define is_power_of_2(n)	((n) != 0 && (((n) & ((n) - 1)) == 0))
#define BIT(n)			(1UL << (n))
#define BITS_PER_BYTE		8
#define sizeof_field(t, f)	(sizeof(((t *)0)->f))
#define ilog2(n)		(31 - __builtin_clz((unsigned int)(n)))
/* linux/hash.h's multiplicative hash, the same bits on both sides. */
#define GOLDEN_RATIO_32		0x61C88647
#define hash_32(val, bits)	((u32)((u32)(val) * GOLDEN_RATIO_32) >> (32 - (bits)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(n, d)	DIV_ROUND_UP((unsigned long long)(n), (d))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#ifndef __cplusplus	/* C++ has std::min and std::max */
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#endif
static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}
static inline size_t array_size(size_t n, size_t size)
{
	size_t r;

	return __builtin_mul_overflow(n, size, &r) ? SIZE_MAX : r;
}
#define struct_size(p, member, n) \
	size_add(sizeof(*(p)), array_size(n, sizeof((p)->member[0])))
#define lockdep_assert_held(l)	((void)(l))
ssize_t strscpy(char *dst, const char *src, size_t size);
char *strim(char *s);
#define scnprintf	snprintf

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE(ptr); }
static inline void *ERR_CAST(const void *ptr) { return (void *)ptr; }

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Lists. */
struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}
static inline void list_add(struct list_head *n, struct list_head *head)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}
static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	INIT_LIST_HEAD(e);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	n->next = head;
	n->prev = head->prev;
	head->prev->next = n;
	head->prev = n;
}
static inline void list_del(struct list_head *e)
{
	list_del_init(e);
}
static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}
#define list_add_rcu		list_add
#define list_del_rcu		list_del
#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

/* Locks: the mirror is single-threaded; a lock checks it is not re-entered. */
struct mutex {
	int held;
};
#define DEFINE_MUTEX(name)	struct mutex name = { 0 }
#define mutex_init(m)		((m)->held = 0)
#define mutex_destroy(m)	((void)(m))
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
typedef struct mutex spinlock_t;
#define DEFINE_SPINLOCK(name)	DEFINE_MUTEX(name)
#define spin_lock_init(l)	((l)->held = 0)
#define spin_lock(l)		mutex_lock(l)
#define spin_unlock(l)		mutex_unlock(l)
#define spin_lock_irqsave(l, f)	((f) = 0, mutex_lock(l))
#define spin_unlock_irqrestore(l, f)	((void)(f), mutex_unlock(l))
#define rcu_read_lock()		do { } while (0)
#define rcu_read_unlock()	do { } while (0)
#define synchronize_rcu()	do { } while (0)
#define list_for_each_entry_rcu	list_for_each_entry

/* Work: queued by schedule_work(), run by flush_work() (or the test). */
struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	work_func_t func;
	bool pending;
};
#define INIT_WORK(w, f)		((w)->func = (f), (w)->pending = false)
bool schedule_work(struct work_struct *work);
bool flush_work(struct work_struct *work);
/* Work queues of the module's own: allocated and counted, else the same. */
struct workqueue_struct {
	unsigned int flags;
};
#define WQ_MEM_RECLAIM		(1u << 3)
struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags,
					 int max_active);
void destroy_workqueue(struct workqueue_struct *wq);
#define queue_work(wq, w)	((void)(wq), schedule_work(w))

/* Atomics and static keys: single-threaded, so plain integers. */
typedef struct {
	int counter;
} atomic_t;
#define atomic_read(v)		((v)->counter)
#define atomic_set(v, i)	((v)->counter = (i))
#define atomic_inc(v)		((v)->counter++)
#define atomic_dec(v)		((v)->counter--)
static inline int atomic_dec_if_positive(atomic_t *v)
{
	int dec = v->counter - 1;

	if (dec >= 0)
		v->counter = dec;
	return dec;
}
struct static_key_false {
	bool enabled;
};
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name = { false }
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define static_branch_unlikely(k)	((k)->enabled)
#define static_branch_enable(k)		((k)->enabled = true)
#define static_branch_disable(k)	((k)->enabled = false)
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
/* Single-threaded, never atomic: nothing to check. */
#define might_sleep()		do { } while (0)
/*
 * A userspace allocation never waits for I/O in reclaim, but the scope is
 * kept (shims/kernel.cpp): the simulated HCA notes on each device MR
 * whether it was allocated in one.
 */
unsigned int memalloc_noio_save(void);
void memalloc_noio_restore(unsigned int flags);

#define smp_load_acquire(p)	(*(p))
#define smp_store_release(p, v)	(*(p) = (v))

/* Reference counts and per-CPU data: one CPU, plain integers. */
struct kref {
	int refcount;
};
#define kref_init(k)		((k)->refcount = 1)
#define kref_get(k)		((k)->refcount++)
static inline int kref_put(struct kref *k, void (*release)(struct kref *k))
{
	if (--k->refcount)
		return 0;
	release(k);
	return 1;
}
#define __percpu
#define alloc_percpu(type)	((type *)mirror_kzalloc(sizeof(type)))
#define free_percpu(p)		kfree(p)
#define per_cpu_ptr(p, cpu)	((void)(cpu), (p))
/*
 * As the kernel's x86-64 this_cpu_add(): one read-modify-write instruction
 * the compiler cannot split into a load it hoists and a store, so that the
 * benchmarks count what the kernel runs.
 */
#if defined(__x86_64__)
#define this_cpu_add(x, n)						\
	do {								\
		if (sizeof(x) == 8)					\
			__asm__ volatile("addq %1, %0" : "+m"(x)	\
					 : "er"((long long)(n)));	\
		else if (sizeof(x) == 4)				\
			__asm__ volatile("addl %1, %0" : "+m"(x)	\
					 : "ir"((int)(n)));		\
		else							\
			(x) += (n);					\
	} while (0)
#else
#define this_cpu_add(x, n)	((x) += (n))
#endif
#define this_cpu_inc(x)		this_cpu_add(x, 1)
#define this_cpu_dec(x)		this_cpu_add(x, -1)
#define DEFINE_PER_CPU(type, name)	type name
#define DECLARE_PER_CPU(type, name)	extern type name
#define per_cpu(var, cpu)	((void)(cpu), (var))
#define for_each_possible_cpu(cpu)	for ((cpu) = 0; (cpu) < 1; (cpu)++)

/* Module parameters and debugfs: present, and inert. */
#define module_param_string(name, string, len, perm) MIRROR_DECL(param_##name)
struct kernel_param;
struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buffer, const struct kernel_param *kp);
};
struct kparam_string {
	unsigned int maxlen;
	char *string;
};
int param_set_copystring(const char *val, const struct kernel_param *kp);
int param_get_string(char *buffer, const struct kernel_param *kp);
#define module_param_cb(name, ops, arg, perm) \
	static const void *const mirror_param_##name[] \
		__attribute__((unused)) = { ops, arg }
#define MODULE_PARM_DESC(name, desc)	MIRROR_DECL(parm_desc_##name)
#define __user
struct inode {
	void *i_private;
};
struct file {
	struct inode *inode;
};
#define file_inode(f)	((f)->inode)
struct dentry;
struct file_operations {
	struct module *owner;
	ssize_t (*read)(struct file *f, char __user *buf, size_t n, loff_t *pos);
	ssize_t (*write)(struct file *f, const char __user *buf, size_t n,
			 loff_t *pos);
	loff_t (*llseek)(struct file *f, loff_t off, int whence);
};
loff_t default_llseek(struct file *f, loff_t off, int whence);
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
void debugfs_remove_recursive(struct dentry *d);
unsigned long copy_from_user(void *to, const void __user *from,
			     unsigned long n);
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);
const struct file_operations *mirror_debugfs_fops(const char *name);
void *mirror_debugfs_data(const char *name);

/*
 * Scatterlists: arrays whose last entry is marked, as the kernel's.  An
 * entry marked @chain holds no data: it links to the next array, at @buf
 * (the kernel keeps both marks and the link in page_link).
 */
struct scatterlist {
	void *buf;
	unsigned int length;
	bool end;
	bool chain;
	dma_addr_t dma_address;
	unsigned int dma_length;
};
static inline void sg_init_table(struct scatterlist *sg, unsigned int n)
{
	memset(sg, 0, n * sizeof(*sg));
	if (n)
		sg[n - 1].end = true;
}
static inline void sg_mark_end(struct scatterlist *sg)
{
	sg->end = true;
}
static inline void sg_unmark_end(struct scatterlist *sg)
{
	sg->end = false;
}
static inline void sg_set_buf(struct scatterlist *sg, const void *buf,
			      unsigned int len)
{
	sg->buf = (void *)buf;
	sg->length = len;
}
/*
 * Pages: a struct page is the page's own bytes, so page + n is the n-th
 * page after it, as nth_page() gives for contiguous memory, and
 * page_address() is the pointer itself.
 */
struct page {
	unsigned char bytes[PAGE_SIZE];
};
static inline void *page_address(const struct page *page)
{
	return (void *)page;
}
#define nth_page(page, n)	((page) + (n))
#define virt_to_page(p)		((struct page *)((uintptr_t)(p) & PAGE_MASK))
static inline void sg_set_page(struct scatterlist *sg, struct page *page,
			       unsigned int len, unsigned int offset)
{
	sg->buf = (unsigned char *)page + offset;
	sg->length = len;
}

/* bio_vec and its iterator: the kernel's fields. */
struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};
struct bvec_iter {
	u64 bi_sector;
	unsigned int bi_size;
	unsigned int bi_idx;
	unsigned int bi_bvec_done;
};

#define sg_dma_address(sg)	((sg)->dma_address)
#define sg_dma_len(sg)		((sg)->dma_length)
static inline bool sg_is_last(const struct scatterlist *sg)
{
	return sg->end;
}
static inline bool sg_is_chain(const struct scatterlist *sg)
{
	return sg->chain;
}
static inline struct scatterlist *sg_chain_ptr(const struct scatterlist *sg)
{
	return (struct scatterlist *)sg->buf;
}
/* Entry @prv_nents - 1 of @prv becomes the link to @sgl. */
static inline void sg_chain(struct scatterlist *prv, unsigned int prv_nents,
			    struct scatterlist *sgl)
{
	struct scatterlist *link = &prv[prv_nents - 1];

	memset(link, 0, sizeof(*link));
	link->buf = sgl;
	link->chain = true;
}
/* Out of line, as lib/scatterlist.c has it (sim/shims/dma.cpp). */
struct scatterlist *sg_next(struct scatterlist *sg);
#define for_each_sg(sglist, sg, nr, i) \
	for ((i) = 0, (sg) = (sglist); (i) < (nr); (i)++, (sg) = sg_next(sg))

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

/* Verbs: the subset the core uses, with the kernel's names and values. */
enum {
	IB_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
};

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = 1,
	IB_ACCESS_REMOTE_WRITE = 1 << 1,
	IB_ACCESS_REMOTE_READ = 1 << 2,
	IB_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
};

struct ib_device_attr {
	u64 device_cap_flags;
	int max_qp_wr;
	int max_send_sge;
	int max_recv_sge;
	int max_sge_rd;
	int max_mr;
	u32 max_fast_reg_page_list_len;
	/* ib_core's rw.c (mirror/bench/vs-rw): 0, as on rxe and siw */
	u32 max_sgl_rd;
	u32 max_pi_fast_reg_page_list_len;
};

/* The kernel's values (uapi/rdma/ib_user_ioctl_verbs.h), the ones we use. */
enum rdma_driver_id {
	RDMA_DRIVER_UNKNOWN = 0,
	RDMA_DRIVER_RXE = 14,
	RDMA_DRIVER_SIW = 18,
};

struct ib_device_ops {
	enum rdma_driver_id driver_id;
};

struct ib_device {
	char name[64];
	struct ib_device_ops ops;
	struct ib_device_attr attrs;
	bool iwarp;
	bool no_read_inv;	/* mirror only: an iWARP device without it */
	void *sim;
	void *client_data;	/* the one client: the module */
};

/* Clients: the simulated HCAs call add() and remove() as ib_core would. */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *dev);
	void (*remove)(struct ib_device *dev, void *client_data);
};
int ib_register_client(struct ib_client *client);
void ib_unregister_client(struct ib_client *client);
#define ib_get_client_data(dev, client)	((void)(client), (dev)->client_data)
#define ib_set_client_data(dev, client, data) \
	((void)(client), (dev)->client_data = (data))

struct ib_pd {
	struct ib_device *device;
	u32 local_dma_lkey;
	void *sim;
};

struct ib_mr {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 lkey;
	u32 rkey;
	u64 iova;
	u64 length;
	unsigned int page_size;
	enum ib_mr_type type;
	void *sim;
	/* ib_core's rw.c and mr_pool.c (mirror/bench/vs-rw) */
	bool need_inval;
	struct list_head qp_entry;
	struct ib_sig_attrs *sig_attrs;
};

struct ib_cq;
struct ib_wc;

struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = 0,
	IB_WR_RDMA_WRITE_WITH_IMM = 1,
	IB_WR_SEND = 2,
	IB_WR_SEND_WITH_IMM = 3,
	IB_WR_RDMA_READ = 4,
	IB_WR_LOCAL_INV = 7,
	IB_WR_SEND_WITH_INV = 9,
	IB_WR_RDMA_READ_WITH_INV = 11,
	IB_WR_REG_MR = 0x20,
};

enum ib_send_flags {
	IB_SEND_FENCE = 1,
	IB_SEND_SIGNALED = 1 << 1,
};

enum ib_wc_flags {
	IB_WC_WITH_INVALIDATE = 1 << 2,
};

struct ib_wc {
	struct ib_cqe *wr_cqe;
	enum ib_wc_status status;
	enum ib_wr_opcode opcode;
	u32 byte_len;
	union {
		u32 imm_data;
		u32 invalidate_rkey;
	} ex;
	int wc_flags;
};

struct ib_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct ib_send_wr {
	struct ib_send_wr *next;
	struct ib_cqe *wr_cqe;
	struct ib_sge *sg_list;
	int num_sge;
	enum ib_wr_opcode opcode;
	int send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
};

struct ib_rdma_wr {
	struct ib_send_wr wr;
	u64 remote_addr;
	u32 rkey;
};

struct ib_reg_wr {
	struct ib_send_wr wr;
	struct ib_mr *mr;
	u32 key;
	int access;
};

/* As ib_verbs.h has them: the WR a send WR is the head of. */
static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

struct ib_qp {
	struct ib_device *device;
	struct ib_pd *pd;
	u32 qp_num;
	u32 max_write_sge;
	u32 max_read_sge;
	void *sim;
	/* ib_core's rw.c and mr_pool.c (mirror/bench/vs-rw) */
	spinlock_t mr_lock;
	int mrs_used;
	struct list_head rdma_mrs;
	struct list_head sig_mrs;
	u8 integrity_en;
};

static inline u32 rdma_start_port(const struct ib_device *dev)
{
	return 1;
}

static inline bool rdma_protocol_iwarp(const struct ib_device *dev,
				       u32 port_num)
{
	return dev->iwarp;
}

static inline bool rdma_cap_read_inv(struct ib_device *dev, u32 port_num)
{
	return dev->iwarp && !dev->no_read_inv;
}

static inline u32 ib_inc_rkey(u32 rkey)
{
	const u32 mask = 0x000000ff;

	return ((rkey + 1) & mask) | (rkey & ~mask);
}

static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

/* Implemented by the simulated HCA. */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg);
int ib_dereg_mr(struct ib_mr *mr);
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size);
int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg, int nents,
		  enum dma_data_direction direction);
void ib_dma_unmap_sg(struct ib_device *dev, struct scatterlist *sg, int nents,
		     enum dma_data_direction direction);
int ib_post_send(struct ib_qp *qp, const struct ib_send_wr *send_wr,
		 const struct ib_send_wr **bad_send_wr);
/* The QP to the error state, and every WR it took flushed (the device runs). */
void ib_drain_sq(struct ib_qp *qp);
const char *ib_wc_status_msg(enum ib_wc_status status);

/*
 * Messages: kept in the mirror's kernel log (sim/printk.h), "<level>
 * <device>: <text>", for tests to read; never rate-limited here, so a test
 * sees every one.
 */
#define KBUILD_MODNAME	"rdma_mrcore"
#define pr_fmt(fmt)	KBUILD_MODNAME ": " fmt
void mirror_printk(const char *level, const struct ib_device *dev,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define ibdev_warn_ratelimited(dev, fmt, ...) \
	mirror_printk("warn", dev, fmt, ##__VA_ARGS__)
#define ibdev_dbg_ratelimited(dev, fmt, ...) \
	mirror_printk("debug", dev, fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) \
	mirror_printk("warn", NULL, pr_fmt(fmt), ##__VA_ARGS__)

#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

/*
 * Tracepoints: the kernel's are in core/mrcore_trace.h, whose guard this
 * defines (mrcore_priv.h includes it); here, nothing.
 */
#define _MRCORE_TRACE_H
static inline void trace_mrcore_dma_map(const struct ib_device *dev,
					const struct scatterlist *sg,
					u32 nents, enum dma_data_direction dir,
					int mapped) { }
static inline void trace_mrcore_dma_unmap(const struct ib_device *dev,
					  const struct scatterlist *sg,
					  u32 nents,
					  enum dma_data_direction dir) { }
static inline bool trace_mrcore_dma_map_enabled(void)
{
	return false;
}
static inline bool trace_mrcore_dma_unmap_enabled(void)
{
	return false;
}

static inline void trace_mrcore_map(const struct rdma_mr *mr) { }
static inline void trace_mrcore_unmap(const struct rdma_mr *mr) { }
static inline void trace_mrcore_invalidate_local(const struct rdma_mr *mr) { }
static inline void trace_mrcore_invalidate_remote(const struct rdma_mr *mr) { }
static inline bool trace_mrcore_io_init_enabled(void)
{
	return false;
}
static inline void trace_mrcore_io_init(const struct rdma_io_ctx *ctx,
					const char *why,
					u32 cost) { }
static inline void trace_mrcore_io_post(const struct rdma_io_ctx *ctx,
					int ret) { }
static inline bool trace_mrcore_io_done_enabled(void)
{
	return false;
}
static inline void trace_mrcore_io_done(const struct rdma_io_ctx *ctx,
					const struct ib_wc *wc) { }
static inline void trace_mrcore_pool_exhausted(const struct rdma_io_pool *pool,
					       u32 wanted, u32 free) { }

#include "mrcore_priv.h"

#ifdef __cplusplus
}
#endif

#endif /* _MRCORE_INTERNAL_H */
