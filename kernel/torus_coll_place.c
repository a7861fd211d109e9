// SPDX-License-Identifier: GPL-2.0
/*
 * Collectives: direct placement of a result into the caller's memory
 * (TORUS_A_COLL_PLACE).  The request pins the caller's buffer and maps
 * it into the kernel in one piece, in the caller's context; the engine
 * then uses it as the operation's result array, so the data coming down
 * the tree land where the caller wants them, with no copy into the
 * answer, none out of the socket and none in libtorus.  A broadcast's
 * root may give its data the same way: its buffer is pinned for reading
 * and the engine encodes the frames from it.  The operation ends in
 * softirq, where pages cannot be unmapped or unpinned: that is
 * left to a work item.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/netlink.h>

#include "torus_coll.h"

static struct workqueue_struct *coll_place_wq;

/**
 * torus_coll_place_get - pin and map the caller's result buffer
 * @addr: its address in the caller's memory, 8-byte aligned
 * @len: its length in bytes, > 0
 * @write: the result is written there (else it is only read: the data
 *	of a broadcast's root)
 * @extack: for the reason of a failure
 *
 * Process context, in the requester's task.
 *
 * Return: the placement, or an ERR_PTR: EINVAL for a misaligned buffer
 * or a caller without memory of its own, EFAULT for a buffer it cannot
 * write (@write) or read, ENOMEM.
 */
struct torus_coll_place *torus_coll_place_get(u64 addr, size_t len,
					      bool write,
					      struct netlink_ext_ack *extack)
{
	unsigned long start = (unsigned long)addr;
	unsigned int off = offset_in_page(start);
	struct torus_coll_place *p;
	int pinned, err;

	if (addr != start || !len || !IS_ALIGNED(start, sizeof(u64))) {
		NL_SET_ERR_MSG(extack,
			       "torus: the result buffer must be 8-byte aligned");
		return ERR_PTR(-EINVAL);
	}
	if (!current->mm) {
		NL_SET_ERR_MSG(extack,
			       "torus: placement needs a requester with memory");
		return ERR_PTR(-EINVAL);
	}
	if (!access_ok((void __user *)start, len)) {
		NL_SET_ERR_MSG(extack, "torus: the buffer is not the caller's");
		return ERR_PTR(-EFAULT);
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->npages = DIV_ROUND_UP(off + len, PAGE_SIZE);
	p->pages = kvmalloc_array(p->npages, sizeof(*p->pages), GFP_KERNEL);
	if (!p->pages) {
		err = -ENOMEM;
		goto free;
	}
	p->written = write;
	/* held as long as the operation: under RLIMIT_MEMLOCK, never in
	 * movable memory (FOLL_LONGTERM)
	 */
	err = account_locked_vm(current->mm, p->npages, true);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "torus: the buffer exceeds RLIMIT_MEMLOCK");
		goto free;
	}
	p->mm = current->mm;
	mmgrab(p->mm);
	pinned = pin_user_pages_fast(start - off, p->npages,
				     (write ? FOLL_WRITE : 0) | FOLL_LONGTERM,
				     p->pages);
	if (pinned != p->npages) {
		if (pinned > 0)
			unpin_user_pages(p->pages, pinned);
		if (write)
			NL_SET_ERR_MSG(extack,
				       "torus: the result buffer is not writable");
		else
			NL_SET_ERR_MSG(extack,
				       "torus: the data buffer is not readable");
		err = pinned < 0 && pinned != -EFAULT ? pinned : -EFAULT;
		goto free;
	}
	/* a buffer pinned for reading is mapped read-only too */
	p->map = vmap(p->pages, p->npages, VM_MAP,
		      write ? PAGE_KERNEL : PAGE_KERNEL_RO);
	if (!p->map) {
		unpin_user_pages(p->pages, p->npages);
		err = -ENOMEM;
		goto free;
	}
	p->vals = p->map + off;
	p->len = len;
	return p;
free:
	if (p->mm) {
		account_locked_vm(p->mm, p->npages, false);
		mmdrop(p->mm);
	}
	kvfree(p->pages);
	kfree(p);
	return ERR_PTR(err);
}

/* Unmap and unpin (process context): the pages are dirty if written. */
void torus_coll_place_release(struct torus_coll_place *p)
{
	if (p->map) {
		vunmap(p->map);
		unpin_user_pages_dirty_lock(p->pages, p->npages, p->written);
	}
	if (p->mm) {
		account_locked_vm(p->mm, p->npages, false);
		mmdrop(p->mm);
	}
	kvfree(p->pages);
	kfree(p);
}

static void coll_place_work(struct work_struct *work)
{
	torus_coll_place_release(container_of(work, struct torus_coll_place,
					      work));
}

/**
 * torus_coll_place_done - the engine is done with a placement
 * @p: the placement
 *
 * Any context.  The writes through the kernel's mapping are made
 * visible through the caller's (a no-op where caches do not alias)
 * before the answer goes out; the rest is left to process context.
 */
void torus_coll_place_done(struct torus_coll_place *p)
{
	if (p->map && p->written)
		flush_kernel_vmap_range(p->vals, p->len);
	INIT_WORK(&p->work, coll_place_work);
	queue_work(coll_place_wq, &p->work);
}

int torus_coll_place_init(void)
{
	coll_place_wq = alloc_workqueue("torus_coll_place", WQ_UNBOUND, 0);
	return coll_place_wq ? 0 : -ENOMEM;
}

/* after every node is gone: waits for the releases still queued */
void torus_coll_place_exit(void)
{
	destroy_workqueue(coll_place_wq);
}
