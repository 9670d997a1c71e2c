/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for the kernel's fixed-size types, so that the pure
 * protocol files of drivers/siw2 compile unmodified under libFuzzer.
 * Only what those files use; the __be/__le types are plain integers
 * (no sparse here: the kernel build checks the byte order annotations).
 * u64 is long long, as in the kernel on every architecture.
 */
#ifndef _SIW2_SHIM_LINUX_TYPES_H
#define _SIW2_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/limits.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef unsigned long long u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef long long s64;

typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;

#endif
