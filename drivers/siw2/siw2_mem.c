// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: memory regions and STags.
 *
 * An STag (RFC 5040 2.2, 4.1) is a 24-bit index into the device's MR
 * table plus an 8-bit key. lkey and rkey are the same STag; the key byte
 * starts at 0 and fast registration may change it.
 */

#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "siw2.h"

/*
 * Access rights siw2 implements for MRs (others: -EOPNOTSUPP). Bits in
 * the IB_ACCESS_OPTIONAL range are hints a device may ignore.
 */
#define SIW2_MR_ACCESS_SUPPORTED                                      \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |             \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |            \
	 IB_ACCESS_OPTIONAL)

static int siw2_mr_check_access(int access)
{
	if (access & ~SIW2_MR_ACCESS_SUPPORTED)
		return -EOPNOTSUPP;
	/* IBA 10.6.3.1: remote write or atomic requires local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
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
	rv = xa_alloc(&sdev->mr_xa, &index, mr,
		      XA_LIMIT(1, SIW2_STAG_INDEX_MAX), GFP_KERNEL);
	if (rv) {
		kfree(mr);
		rv = rv == -EBUSY ? -ENOMEM : rv;
		goto err;
	}
	/* The core sets these too, but error paths before that need them. */
	mr->base.device = pd->device;
	mr->base.pd = pd;
	mr->type = type;
	mr->access = access;
	mr->base.lkey = index << 8;
	mr->base.rkey = index << 8;
	return mr;
err:
	siw2_obj_put(sdev, SIW2_OBJ_MR);
	return ERR_PTR(rv);
}

static void siw2_mr_free(struct siw2_mr *mr)
{
	struct siw2_device *sdev = to_siw2_dev(mr->base.device);

	xa_erase(&sdev->mr_xa, mr->base.lkey >> 8);
	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr);
	siw2_obj_put(sdev, SIW2_OBJ_MR);
}

/**
 * siw2_get_dma_mr - MR covering all kernel memory, for kernel consumers
 * @pd: PD
 * @access: IB_ACCESS_* flags
 *
 * Return: the MR or ERR_PTR(-EINVAL/-EOPNOTSUPP/-ENOMEM).
 */
struct ib_mr *siw2_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw2_mr *mr;
	int rv;

	rv = siw2_mr_check_access(access);
	if (rv)
		return ERR_PTR(rv);
	mr = siw2_mr_new(pd, SIW2_MR_DMA, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->base.iova = 0;
	mr->base.length = U64_MAX;
	return &mr->base;
}

/**
 * siw2_reg_user_mr - register and pin user memory
 * @pd: PD
 * @start: user virtual address
 * @len: length in bytes
 * @iova: address the consumer uses for the region
 * @access: IB_ACCESS_* flags
 * @udata: user data (no input, no response)
 *
 * Return: the MR, or ERR_PTR(-EINVAL) for an empty or oversized region or
 * inconsistent rights, -EOPNOTSUPP for unsupported rights (e.g. on-demand
 * paging), -EFAULT for memory that cannot be pinned, -ENOMEM.
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
	rv = siw2_mr_check_access(access);
	if (!rv)
		rv = siw2_udata_no_input(udata);
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
	mr->base.iova = iova;
	mr->base.length = len;
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

	if (mr->type != SIW2_MR_FRMR)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, siw2_set_page);
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
	siw2_mr_free(to_siw2_mr(ibmr));
	return 0;
}
