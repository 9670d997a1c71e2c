/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: what differs between the kernels siw2 builds for (Linux 6.1 and
 * 6.12), in one place.  The code is written for 6.12; for an older kernel
 * the Kbuild file finds in that kernel's headers what it lacks and sets
 * SIW2_NO_<what>, and this header fills each gap in.  Probing the headers
 * instead of comparing version numbers lets a distribution's backport
 * count.  Macros only: the protocol layer includes this for the unaligned
 * accessors, and the user-space builds of it (KUnit, libFuzzer) set
 * nothing.
 */
#ifndef _SIW2_COMPAT_H
#define _SIW2_COMPAT_H

/* 6.12 moved the unaligned accessors from asm/ to linux/. */
#ifdef SIW2_NO_LINUX_UNALIGNED
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/*
 * 6.2 gave the verbs RDMA Flush and Atomic Write.  Before it no kernel
 * consumer can post them, but siw2 still carries them from user space
 * through its rings: internally under the numbers 6.2 gave the work
 * requests (free before 6.2) and completion numbers outside the older
 * enum ib_wc_opcode, which the CQ ring translates to the uverbs ones
 * rdma-core knows.
 */
#ifdef SIW2_NO_IB_FLUSH
#define IB_WR_FLUSH 14
#define IB_WR_ATOMIC_WRITE 15
#define IB_WC_FLUSH 0x40
#define IB_WC_ATOMIC_WRITE 0x41
#define IB_UVERBS_WC_FLUSH 8
#define IB_UVERBS_WC_ATOMIC_WRITE 9
#define IB_ACCESS_FLUSH_GLOBAL BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT BIT(9)
#define IB_DEVICE_FLUSH_GLOBAL BIT_ULL(38)
#define IB_DEVICE_FLUSH_PERSISTENT BIT_ULL(39)
#define IB_DEVICE_ATOMIC_WRITE BIT_ULL(40)
#endif

/*
 * Before 6.2 the core also refuses IB_ACCESS_FLUSH_* in a user
 * registration before siw2 sees it: the provider sends those rights in
 * the registration's driver data (SIW2_UCTX_CAP_MR_FLUSH_UDATA).
 */
#ifdef SIW2_NO_IB_FLUSH
#define SIW2_CORE_PASSES_FLUSH_ACCESS false
#else
#define SIW2_CORE_PASSES_FLUSH_ACCESS true
#endif

/* 6.3 made vma->vm_flags private to these two. */
#ifdef SIW2_NO_VM_FLAGS_SET
#define vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#define vm_flags_clear(vma, flags) ((vma)->vm_flags &= ~(flags))
#endif

/*
 * 6.10: __assign_str() takes the field alone and copies from the source
 * __string() named; before, it took the source again.
 */
#ifdef SIW2_NO_ASSIGN_STR_1
#define siw2_assign_str(dst, src) __assign_str(dst, src)
#else
#define siw2_assign_str(dst, src) do { __assign_str(dst); (void)(src); } while (0)
#endif

/*
 * 6.11: create_cq gets the whole uverbs bundle, not its driver udata;
 * siw2_create_cq() takes a struct siw2_cq_attrs and finds the udata with
 * siw2_cq_udata().
 */
#ifdef SIW2_NO_CQ_ATTR_BUNDLE
#define siw2_cq_attrs ib_udata
#define siw2_cq_udata(attrs) (attrs)
#else
#define siw2_cq_attrs uverbs_attr_bundle
#define siw2_cq_udata(attrs) ({					\
	struct uverbs_attr_bundle *__b = (attrs);			\
									\
	__b ? &__b->driver_udata : NULL;				\
})
#endif

/*
 * 6.5's rdma_cm finds an iWARP device by its netdev; before, by comparing
 * GIDs with the netdev's hardware address, which lo and tunnels lack.
 * That is cma.c, which no header shows: compat.mk compares versions.
 */
#ifdef SIW2_NO_CMA_IWARP_BY_NETDEV
#define SIW2_CMA_FINDS_IWARP_BY_NETDEV false
#else
#define SIW2_CMA_FINDS_IWARP_BY_NETDEV true
#endif

#endif /* _SIW2_COMPAT_H */
