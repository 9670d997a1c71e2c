/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in: byte order conversions for either host order. */
#ifndef _SIW2_SHIM_ASM_BYTEORDER_H
#define _SIW2_SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define __siw2_shim_be16(x)	__builtin_bswap16(x)
#define __siw2_shim_be32(x)	__builtin_bswap32(x)
#define __siw2_shim_be64(x)	__builtin_bswap64(x)
#define __siw2_shim_le16(x)	((u16)(x))
#define __siw2_shim_le32(x)	((u32)(x))
#define __siw2_shim_le64(x)	((u64)(x))
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define __siw2_shim_be16(x)	((u16)(x))
#define __siw2_shim_be32(x)	((u32)(x))
#define __siw2_shim_be64(x)	((u64)(x))
#define __siw2_shim_le16(x)	__builtin_bswap16(x)
#define __siw2_shim_le32(x)	__builtin_bswap32(x)
#define __siw2_shim_le64(x)	__builtin_bswap64(x)
#else
#error "unknown host byte order"
#endif

#define cpu_to_be16(x)	((__be16)__siw2_shim_be16((u16)(x)))
#define cpu_to_be32(x)	((__be32)__siw2_shim_be32((u32)(x)))
#define cpu_to_be64(x)	((__be64)__siw2_shim_be64((u64)(x)))
#define be16_to_cpu(x)	((u16)__siw2_shim_be16((u16)(x)))
#define be32_to_cpu(x)	((u32)__siw2_shim_be32((u32)(x)))
#define be64_to_cpu(x)	((u64)__siw2_shim_be64((u64)(x)))
#define cpu_to_le16(x)	((__le16)__siw2_shim_le16((u16)(x)))
#define cpu_to_le32(x)	((__le32)__siw2_shim_le32((u32)(x)))
#define cpu_to_le64(x)	((__le64)__siw2_shim_le64((u64)(x)))
#define le16_to_cpu(x)	((u16)__siw2_shim_le16((u16)(x)))
#define le32_to_cpu(x)	((u32)__siw2_shim_le32((u32)(x)))
#define le64_to_cpu(x)	((u64)__siw2_shim_le64((u64)(x)))

#endif
