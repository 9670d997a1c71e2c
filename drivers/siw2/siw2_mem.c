// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: memory regions and STags.
 *
 * An STag (RFC 5040 2.2, 4.1) is a 24-bit index into the device's MR
 * table plus an 8-bit key. lkey and rkey are the same STag; the key byte
 * starts at 0 and fast registration may change it.
 */

#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "siw2.h"
#include "siw2_pmem.h"

/*
 * Access rights siw2 implements for MRs (others: -EOPNOTSUPP). Bits in
 * the IB_ACCESS_OPTIONAL range are hints a device may ignore.
 */
#define SIW2_MR_ACCESS_SUPPORTED                                      \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |             \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |            \
	 IB_ACCESS_MW_BIND | IB_ACCESS_FLUSH_GLOBAL |                 \
	 IB_ACCESS_FLUSH_PERSISTENT | IB_ACCESS_OPTIONAL)

static int siw2_mr_check_access(int access)
{
	if (access & ~SIW2_MR_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;
	/* IBA 10.6.3.1: remote write or atomic requires local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/* Durable only where the kernel can write back (before pinning). */
	return siw2_durable_access(access);
}

/* Is the page at @pa persistent memory (a pmem or device-DAX region)? */
static bool siw2_pa_is_pmem(phys_addr_t pa)
{
	return region_intersects(pa & PAGE_MASK, PAGE_SIZE, IORESOURCE_MEM,
				 IORES_DESC_PERSISTENT_MEMORY) ==
	       REGION_INTERSECTS;
}

/*
 * A durable registration (IB_ACCESS_FLUSH_PERSISTENT) is a promise that
 * a Commit makes its range durable (COMMIT-ACC-1, DEC-14): only memory
 * whose every page is persistent can keep it, and only on a kernel that
 * can write back (where it cannot, the compiler drops the rest).
 */
static int siw2_mr_check_durable(struct siw2_mr *mr, int access)
{
	int rv = siw2_durable_access(access);
	u32 i;

	if (rv || !(access & IB_ACCESS_FLUSH_PERSISTENT))
		return rv;
	switch (mr->type) {
	case SIW2_MR_USER:
		for (i = 0; i < mr->nupages; i++)
			if (!siw2_pa_is_pmem(page_to_phys(mr->upages[i])))
				return -EMEDIUMTYPE;
		return 0;
	case SIW2_MR_FRMR:
		for (i = 0; i < mr->npages; i++)
			if (!siw2_pa_is_pmem(virt_to_phys((void *)(uintptr_t)
							  mr->pages[i])))
				return -EMEDIUMTYPE;
		return 0;
	default:
			return -EMEDIUMTYPE;
	}
}

static struct siw2_mr *siw2_mr_new(struct ib_pd *pd, enum siw2_mr_type type,
				   int access)
{
	struct siw2_device *sdev = to_siw2_dev(pd->device);
	struct siw2_mr *mr;
	u32 index;
	int rv;

	rv = siw2_obj_get(sdev, SIW2_OBJ_MR);
	if (rv)
		return ERR_PTR(rv);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		rv = -ENOMEM;
		goto err;
	}
	/*
	 * Cyclic: a deregistered STag names nothing for a long while, rather
	 * than the next region registered (RFC 5040 5.2).
	 */
	rv = xa_alloc_cyclic(&sdev->mr_xa, &index, mr,
			     XA_LIMIT(1, SIW2_STAG_INDEX_MAX), &sdev->mr_next,
			     GFP_KERNEL);
	if (rv < 0) {
		kfree(mr);
		rv = rv == -EBUSY ? -ENOMEM : rv;
		goto err;
	}
	/* The core sets these too, but error paths before that need them. */
	mr->base.device = pd->device;
	mr->base.pd = pd;
	kref_init(&mr->ref);
	spin_lock_init(&mr->mw_lock);
	mr->type = type;
	mr->access = access;
	mr->base.lkey = index << 8;
	mr->base.rkey = index << 8;
	mr->stag = index << 8;
	return mr;
err:
	siw2_obj_put(sdev, SIW2_OBJ_MR);
	return ERR_PTR(rv);
}

static void siw2_mr_destroy(struct siw2_mr *mr)
{
	struct siw2_device *sdev = to_siw2_dev(mr->base.device);

	ib_umem_release(mr->umem);
	kvfree(mr->upages);
	kvfree(mr->pages);
	kfree_rcu(mr, rcu);
	siw2_obj_put(sdev, SIW2_OBJ_MR);
}

static void siw2_mr_free_work(struct work_struct *work)
{
	siw2_mr_destroy(container_of(work, struct siw2_mr, free_work));
}

static void siw2_mr_release(struct kref *ref)
{
	struct siw2_mr *mr = container_of(ref, struct siw2_mr, ref);

	/* Unpinning may sleep; the RX engine may drop the last reference. */
	if (in_task()) {
		siw2_mr_destroy(mr);
		return;
	}
	INIT_WORK(&mr->free_work, siw2_mr_free_work);
	queue_work(siw2_async_wq, &mr->free_work);
}

/**
 * siw2_mr_put - drop a reference; the last one frees the MR and unpins
 * @mr: MR
 */
void siw2_mr_put(struct siw2_mr *mr)
{
	kref_put(&mr->ref, siw2_mr_release);
}

/* The STag leaves the table at once; data path users keep the memory. */
static void siw2_mr_free(struct siw2_mr *mr)
{
	struct siw2_device *sdev = to_siw2_dev(mr->base.device);

	WRITE_ONCE(mr->valid, false);
	xa_erase(&sdev->mr_xa, mr->base.lkey >> 8);
	siw2_mr_put(mr);
}

/**
 * siw2_mr_get - find an MR by STag for the data path
 * @sdev: device
 * @stag: the STag, key included
 *
 * Return: the MR, referenced, if the STag names one whose current key
 * matches; NULL otherwise. Validity and rights are siw2_mr_check()'s.
 */
struct siw2_mr *siw2_mr_get(struct siw2_device *sdev, u32 stag)
{
	struct siw2_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, stag >> 8);
	if (mr && (READ_ONCE(mr->stag) != stag ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * siw2_mr_check - may [@va, @va + @len) of @mr be used with @access?
 * @mr: MR (referenced)
 * @pd: the PD of the QP using it (RFC 5040 5.2: STag and stream share it)
 * @va: first address
 * @len: length; 0 needs only a valid STag
 * @access: IB_ACCESS_* needed; 0 for a local read
 *
 * Return: SIW2_MEM_OK or the first violation, in the order RFC 5041 and
 * RFC 5040 list them: STag, PD, wrap, bounds, rights.
 */
enum siw2_mem_err siw2_mr_check(struct siw2_mr *mr, struct ib_pd *pd,
				u64 va, u64 len, int access)
{
	u64 start, end;

	if (!READ_ONCE(mr->valid))
		return SIW2_MEM_E_STAG;
	/* Pairs with the WRITE_ONCE of @valid in fast registration. */
	smp_rmb();
	if (mr->base.pd != pd)
		return SIW2_MEM_E_PD;
	if (va + len < va)
		return SIW2_MEM_E_WRAP;
	start = READ_ONCE(mr->iova);
	end = start + READ_ONCE(mr->length);
	if (len && (va < start || va + len > end || end < start))
		return SIW2_MEM_E_BOUNDS;
	if ((READ_ONCE(mr->access) & access) != access)
		return SIW2_MEM_E_ACCESS;
	return SIW2_MEM_OK;
}

/* Rights only a peer uses: a window opens memory to the peer alone. */
#define SIW2_REMOTE_RIGHTS                                             \
	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |              \
	 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_FLUSH_GLOBAL |             \
	 IB_ACCESS_FLUSH_PERSISTENT)

/*
 * siw2_mw_resolve - a window's STag: check the window, then hand out the
 * MR it is bound to, referenced.  Under @mw_lock so that a bind or an
 * invalidation never comes between the check and the reference.  A
 * window is never a local key (IBA 10.6.7.1).  Drops @mw's reference.
 */
static enum siw2_mem_err siw2_mw_resolve(struct siw2_mr *mw, struct ib_pd *pd,
					 u64 va, u64 len, int access,
					 struct siw2_mr **mrp)
{
	struct siw2_mr *parent = NULL;
	enum siw2_mem_err err = SIW2_MEM_E_STAG;
	unsigned long flags;

	if (access & SIW2_REMOTE_RIGHTS) {
		spin_lock_irqsave(&mw->mw_lock, flags);
		err = siw2_mr_check(mw, pd, va, len, access);
		parent = mw->parent;
		if (!err && (!parent || !kref_get_unless_zero(&parent->ref)))
			err = SIW2_MEM_E_STAG;
		spin_unlock_irqrestore(&mw->mw_lock, flags);
	}
	siw2_mr_put(mw);
	if (err)
		return err;
	*mrp = parent;
	return SIW2_MEM_OK;
}

/**
 * siw2_mr_lookup - find and check an MR in one step
 * @sdev: device
 * @pd: the QP's PD
 * @stag: STag
 * @va: first address
 * @len: length
 * @access: rights needed
 * @mrp: set to the MR, referenced, on success
 *
 * Return: as siw2_mr_check(); SIW2_MEM_E_STAG for an unknown STag.
 */
enum siw2_mem_err siw2_mr_lookup(struct siw2_device *sdev, struct ib_pd *pd,
				 u32 stag, u64 va, u64 len, int access,
				 struct siw2_mr **mrp)
{
	struct siw2_mr *mr = siw2_mr_get(sdev, stag);
	enum siw2_mem_err err;

	if (!mr)
		return SIW2_MEM_E_STAG;
	if (mr->type == SIW2_MR_MW)
		return siw2_mw_resolve(mr, pd, va, len, access, mrp);
	err = siw2_mr_check(mr, pd, va, len, access);
	if (err) {
		siw2_mr_put(mr);
		return err;
	}
	*mrp = mr;
	return SIW2_MEM_OK;
}

/**
 * siw2_mr_kaddr - kernel address of a checked MR address
 * @mr: MR, checked for [@va, @va + @len)
 * @va: address in the region
 * @len: octets wanted
 * @kaddr: set to the kernel address of @va
 *
 * Return: how many octets from @kaddr on are contiguous (1..@len).
 */
int siw2_mr_kaddr(struct siw2_mr *mr, u64 va, u32 len, void **kaddr)
{
	u64 off = va - READ_ONCE(mr->iova);
	u32 psz, in;

	switch (mr->type) {
	case SIW2_MR_USER:
		off += mr->uoff;
		in = off & ~PAGE_MASK;
		*kaddr = page_address(mr->upages[off >> PAGE_SHIFT]) + in;
		return min_t(u32, len, PAGE_SIZE - in);
	case SIW2_MR_FRMR:
		psz = mr->base.page_size;
		off += mr->first_off;
		in = off % psz;
		*kaddr = (void *)(uintptr_t)mr->pages[off / psz] + in;
		return min_t(u32, len, psz - in);
	default:
		/* Kernel virtual addresses (the device has no DMA mapping). */
		*kaddr = (void *)(uintptr_t)va;
		return len;
	}
}

/*
 * siw2_mw_unbind - invalidate a window: its STag stops at once, and the
 * MR it was bound to may be deregistered again.  Lookups that got the
 * MR before keep their own reference.
 */
static void siw2_mw_unbind(struct siw2_mr *mw)
{
	struct siw2_mr *parent;
	unsigned long flags;

	spin_lock_irqsave(&mw->mw_lock, flags);
	parent = mw->parent;
	mw->parent = NULL;
	WRITE_ONCE(mw->valid, false);
	spin_unlock_irqrestore(&mw->mw_lock, flags);
	if (parent) {
		atomic_dec(&parent->mw_bound);
		siw2_mr_put(parent);
	}
}

/**
 * siw2_mr_invalidate - invalidate an STag (Local Invalidate, Send with
 * Invalidate, RDMA Read with Invalidate)
 * @sdev: device
 * @pd: the PD of the QP asking
 * @stag: the STag
 *
 * Only fast-registration and memory window STags can be invalidated
 * (RFC 5040 5.2, RPCRDMA2-INV-3).
 *
 * Return: 0, or -EINVAL for an unknown STag, one of another PD or one
 * that cannot be invalidated.
 */
int siw2_mr_invalidate(struct siw2_device *sdev, struct ib_pd *pd, u32 stag)
{
	struct siw2_mr *mr = siw2_mr_get(sdev, stag);
	int rv = 0;

	if (!mr)
		return -EINVAL;
	if (mr->base.pd != pd)
		rv = -EINVAL;
	else if (mr->type == SIW2_MR_MW)
		siw2_mw_unbind(mr);
	else if (mr->type == SIW2_MR_FRMR)
		WRITE_ONCE(mr->valid, false);
	else
		rv = -EINVAL;
	siw2_mr_put(mr);
	return rv;
}

/**
 * siw2_mr_fast_reg - execute IB_WR_REG_MR
 * @mr: a fast-registration MR whose page list siw2_map_mr_sg() loaded
 * @pd: the PD of the QP executing the request
 * @key: the new STag: same index, new key byte (BASE-RDMAP-3)
 * @access: rights to grant
 *
 * Return: 0, or -EINVAL for another MR type or PD, a foreign index, an
 * STag still valid, or an empty page list.
 */
int siw2_mr_fast_reg(struct siw2_mr *mr, struct ib_pd *pd, u32 key,
		     int access)
{
	if (mr->type != SIW2_MR_FRMR || mr->base.pd != pd ||
	    (key >> 8) != (mr->base.lkey >> 8) || READ_ONCE(mr->valid) ||
	    !mr->npages || siw2_mr_check_access(access) ||
	    siw2_mr_check_durable(mr, access))
		return -EINVAL;
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(mr->iova, mr->base.iova);
	WRITE_ONCE(mr->length, mr->base.length);
	WRITE_ONCE(mr->stag, key);
	/* Pairs with the smp_rmb() in siw2_mr_check(). */
	smp_wmb();
	WRITE_ONCE(mr->valid, true);
	return 0;
}

/**
 * siw2_get_dma_mr - MR covering all kernel memory, for kernel consumers
 * @pd: PD
 * @access: IB_ACCESS_* flags
 *
 * Return: the MR or ERR_PTR(-EINVAL/-EOPNOTSUPP/-ENOMEM), -EMEDIUMTYPE
 * for IB_ACCESS_FLUSH_PERSISTENT (-EOPNOTSUPP on a kernel that cannot
 * write back, siw2_durable_access()).
 */
struct ib_mr *siw2_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw2_mr *mr;
	int rv;

	rv = siw2_mr_check_access(access);
	if (!rv && (access & IB_ACCESS_FLUSH_PERSISTENT))
		rv = -EMEDIUMTYPE;	/* all of kernel memory is not pmem */
	if (rv)
		return ERR_PTR(rv);
	mr = siw2_mr_new(pd, SIW2_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->base.iova = 0;
	mr->base.length = U64_MAX;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->valid = true;
	return &mr->base;
}

/* One page pointer per PAGE_SIZE of the region, for O(1) translation. */
static int siw2_mr_pin_pages(struct siw2_mr *mr, struct ib_umem *umem)
{
	struct sg_page_iter it;
	size_t n = ib_umem_num_pages(umem), i = 0;

	mr->upages = kvcalloc(n, sizeof(*mr->upages), GFP_KERNEL);
	if (!mr->upages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (i == n)
			break;
		mr->upages[i++] = sg_page_iter_page(&it);
	}
	if (i != n)
		return -EFAULT;
	mr->nupages = n;
	mr->uoff = ib_umem_offset(umem);
	return 0;
}

/**
 * siw2_mr_udata_access - add the Flush rights a registration's driver data
 *	carries
 * @udata: user data of ibv_reg_mr()
 * @access: the registration's IB_ACCESS_* flags, updated
 *
 * The provider puts them there where the core would refuse them
 * (SIW2_UCTX_CAP_MR_FLUSH_UDATA); any other bit, or data past the
 * structure, is refused.
 *
 * Return: 0, -EFAULT, -EINVAL for other rights, -EOPNOTSUPP for more
 * data than siw2 knows.
 */
static int siw2_mr_udata_access(struct ib_udata *udata, int *access)
{
	struct siw2_ureq_reg_mr req = {};
	int rv = siw2_udata_input(udata, &req, sizeof(req));

	if (rv)
		return rv;
	if (req.reserved || (req.access_flush & ~(IB_ACCESS_FLUSH_GLOBAL |
						  IB_ACCESS_FLUSH_PERSISTENT)))
		return -EINVAL;
	*access |= req.access_flush;
	return 0;
}

/**
 * siw2_reg_user_mr - register and pin user memory
 * @pd: PD
 * @start: user virtual address
 * @len: length in bytes
 * @iova: address the consumer uses for the region
 * @access: IB_ACCESS_* flags
 * @udata: user data: struct siw2_ureq_reg_mr or nothing; no response
 *
 * Return: the MR, or ERR_PTR(-EINVAL) for an empty or oversized region or
 * inconsistent rights, -EOPNOTSUPP for unsupported rights (e.g. on-demand
 * paging, or IB_ACCESS_FLUSH_PERSISTENT on a kernel that cannot write
 * back: siw2_durable_access()) or driver data siw2 does not know, what
 * ib_umem_get() fails with for memory that cannot be pinned for long
 * (-EFAULT, or -EOPNOTSUPP for a file on a DAX file system),
 * -EMEDIUMTYPE for a durable registration (IB_ACCESS_FLUSH_PERSISTENT)
 * of memory that is not all persistent, -ENOMEM.
 */
struct ib_mr *siw2_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 iova, int access, struct ib_udata *udata)
{
	struct siw2_mr *mr;
	struct ib_umem *umem;
	int rv;

	if (!len || len > SIW2_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	if (iova + len < iova)
		return ERR_PTR(-EINVAL);
	rv = siw2_mr_udata_access(udata, &access);
	if (!rv)
		rv = siw2_mr_check_access(access);
	if (rv)
		return ERR_PTR(rv);

	umem = ib_umem_get(pd->device, start, len, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	mr = siw2_mr_new(pd, SIW2_MR_USER, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	rv = siw2_mr_pin_pages(mr, umem);
	if (!rv)
		rv = siw2_mr_check_durable(mr, access);
	if (rv) {
		siw2_mr_free(mr);
		return ERR_PTR(rv);
	}
	mr->base.iova = iova;
	mr->base.length = len;
	mr->iova = iova;
	mr->length = len;
	mr->valid = true;
	return &mr->base;
}

/**
 * siw2_alloc_mr - MR for fast registration by IB_WR_REG_MR
 * @pd: PD
 * @type: only IB_MR_TYPE_MEM_REG
 * @max_num_sg: pages the MR can map
 *
 * Return: the MR, or ERR_PTR(-EOPNOTSUPP) for another type, -EINVAL for
 * zero or more than max_fast_reg_page_list_len pages, -ENOMEM.
 */
struct ib_mr *siw2_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct siw2_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SIW2_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);

	mr = siw2_mr_new(pd, SIW2_MR_FRMR, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kvcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		siw2_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	return &mr->base;
}

static int siw2_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct siw2_mr *mr = to_siw2_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

/**
 * siw2_map_mr_sg - load a fast-registration MR's page list
 * @ibmr: MR from siw2_alloc_mr()
 * @sg: scatterlist (virtually addressed: siw2 has no DMA device)
 * @sg_nents: entries in @sg
 * @sg_offset: offset into the first entry, updated
 *
 * Return: the number of entries mapped, or -EINVAL for another MR type.
 */
int siw2_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct siw2_mr *mr = to_siw2_mr(ibmr);
	int n;

	if (mr->type != SIW2_MR_FRMR)
		return -EINVAL;
	mr->npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, siw2_set_page);
	if (n > 0 && mr->npages)
		mr->first_off = ibmr->iova - mr->pages[0];
	return n;
}

/**
 * siw2_dereg_mr - destroy an MR and invalidate its STag
 * @ibmr: MR
 * @udata: user data
 *
 * Return: 0
 */
int siw2_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct siw2_mr *mr = to_siw2_mr(ibmr);

	/* Windows still open onto it: they go first (IBA 10.6.7.2.6). */
	if (atomic_read(&mr->mw_bound))
		return -EBUSY;
	siw2_mr_free(mr);
	return 0;
}

/**
 * siw2_alloc_mw - a memory window of type 2A, not yet bound
 * @ibmw: the core's window; its type was chosen by the caller
 * @udata: user data (windows are user space's: a kernel consumer has no
 *	way to bind one)
 *
 * The window takes an entry of the STag table (counted as an MR) with
 * key 0, invalid until a bind work request makes it valid.
 *
 * Return: 0, -EOPNOTSUPP for a type 1 window, -ENOMEM.
 */
int siw2_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct siw2_mw *mw = to_siw2_mw(ibmw);
	struct siw2_mr *e;

	if (ibmw->type != IB_MW_TYPE_2)
		return -EOPNOTSUPP;
	e = siw2_mr_new(ibmw->pd, SIW2_MR_MW, 0);
	if (IS_ERR(e))
		return PTR_ERR(e);
	mw->entry = e;
	ibmw->rkey = e->stag;
	return 0;
}

/**
 * siw2_dealloc_mw - invalidate and free a window
 * @ibmw: window
 *
 * Return: 0
 */
int siw2_dealloc_mw(struct ib_mw *ibmw)
{
	struct siw2_mr *e = to_siw2_mw(ibmw)->entry;

	siw2_mw_unbind(e);
	siw2_mr_free(e);
	return 0;
}

/**
 * siw2_mw_bind - execute a bind work request (IB_UVERBS_WR_BIND_MW)
 * @sdev: device
 * @pd: the PD of the QP executing it
 * @rkey: the window's new STag: its index, and the key byte the consumer
 *	chose
 * @b: the MR, the range in it and the remote rights
 *
 * A type 2 window must be invalid to be bound (IBA 10.6.7.2.4); the MR
 * must be valid, of the same PD, registered with IB_ACCESS_MW_BIND, and
 * hold the range; remote write or atomic rights need the MR's local
 * write.  Zero-based windows are not offered.
 *
 * Return: 0, or -EINVAL (the work request completes IB_WC_MW_BIND_ERR).
 */
int siw2_mw_bind(struct siw2_device *sdev, struct ib_pd *pd, u32 rkey,
		 const struct siw2_bind_info *b)
{
	const u32 rights = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_ATOMIC;
	struct siw2_mr *mw, *mr;
	unsigned long flags;
	int rv = -EINVAL;

	rcu_read_lock();
	mw = xa_load(&sdev->mr_xa, rkey >> 8);
	if (mw && (mw->type != SIW2_MR_MW || !kref_get_unless_zero(&mw->ref)))
		mw = NULL;
	rcu_read_unlock();
	if (!mw)
		return -EINVAL;
	mr = siw2_mr_get(sdev, b->mr_lkey);
	if (!mr)
		goto out_mw;
	if (mw->base.pd != pd || mr->type == SIW2_MR_MW || !b->length ||
	    (b->access & ~rights) || !(READ_ONCE(mr->access) & IB_ACCESS_MW_BIND) ||
	    ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	     !(READ_ONCE(mr->access) & IB_ACCESS_LOCAL_WRITE)) ||
	    siw2_mr_check(mr, pd, b->addr, b->length, 0))
		goto out_mr;
	spin_lock_irqsave(&mw->mw_lock, flags);
	if (!mw->valid) {
		mw->parent = mr;	/* the lookup's reference moves here */
		mr = NULL;
		atomic_inc(&mw->parent->mw_bound);
		WRITE_ONCE(mw->access, b->access);
		WRITE_ONCE(mw->iova, b->addr);
		WRITE_ONCE(mw->length, b->length);
		WRITE_ONCE(mw->stag, rkey);
		WRITE_ONCE(mw->valid, true);
		rv = 0;
	}
	spin_unlock_irqrestore(&mw->mw_lock, flags);
out_mr:
	if (mr)
		siw2_mr_put(mr);
out_mw:
	siw2_mr_put(mw);
	return rv;
}
