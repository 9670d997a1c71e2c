# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What the kernel built against lacks of what siw2 uses, each found in its
# headers (a backport counts) and filled in by siw2_compat.h; nothing is
# set for 6.12.  Included by drivers/siw2/Kbuild and tests/kmod/Kbuild.
siw2_hdr = $(srctree)/include/$(1)
siw2_lacks = $(shell grep -qs -e '$(2)' $(call siw2_hdr,$(1)) || echo -DSIW2_NO_$(3))
ccflags-y += $(if $(wildcard $(call siw2_hdr,linux/unaligned.h)),,-DSIW2_NO_LINUX_UNALIGNED)
ccflags-y += $(call siw2_lacks,rdma/ib_verbs.h,IB_WR_FLUSH,IB_FLUSH)
ccflags-y += $(call siw2_lacks,linux/mm.h,void vm_flags_set,VM_FLAGS_SET)
ccflags-y += $(call siw2_lacks,trace/stages/stage6_event_callback.h,define __assign_str(dst)[[:space:]],ASSIGN_STR_1)
ccflags-y += $(shell grep -s -A1 'int (\*create_cq)' $(call siw2_hdr,rdma/ib_verbs.h) | \
	       grep -q uverbs_attr_bundle || echo -DSIW2_NO_CQ_ATTR_BUNDLE)
# rdma_cm's iWARP device lookup by netdev (6.5) is in cma.c, not a header.
ccflags-y += $(shell [ $$(( $(VERSION) * 1000 + $(PATCHLEVEL) )) -ge 6005 ] || echo -DSIW2_NO_CMA_IWARP_BY_NETDEV)
