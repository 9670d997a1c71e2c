/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: unaligned loads and stores through memcpy, so that
 * ASan sees every byte touched and UBSan no misaligned access.
 */
#ifndef _SIW2_SHIM_LINUX_UNALIGNED_H
#define _SIW2_SHIM_LINUX_UNALIGNED_H

#include <string.h>

#include <asm/byteorder.h>
#include <linux/types.h>

#define __SIW2_SHIM_UNALIGNED(name, type, conv_in, conv_out)		\
static inline type get_unaligned_##name(const void *p)			\
{									\
	type v;								\
									\
	memcpy(&v, p, sizeof(v));					\
	return conv_out(v);						\
}									\
static inline void put_unaligned_##name(type v, void *p)		\
{									\
	type w = conv_in(v);						\
									\
	memcpy(p, &w, sizeof(w));					\
}

__SIW2_SHIM_UNALIGNED(be16, u16, cpu_to_be16, be16_to_cpu)
__SIW2_SHIM_UNALIGNED(be32, u32, cpu_to_be32, be32_to_cpu)
__SIW2_SHIM_UNALIGNED(be64, u64, cpu_to_be64, be64_to_cpu)
__SIW2_SHIM_UNALIGNED(le16, u16, cpu_to_le16, le16_to_cpu)
__SIW2_SHIM_UNALIGNED(le32, u32, cpu_to_le32, le32_to_cpu)
__SIW2_SHIM_UNALIGNED(le64, u64, cpu_to_le64, le64_to_cpu)

#endif
