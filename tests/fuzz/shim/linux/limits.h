/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: the kernel's U*_MAX names (siw2_fpdu.c uses
 * U16_MAX), on top of the system's uAPI <linux/limits.h>, which glibc's
 * <limits.h> includes for PATH_MAX and friends.
 */
#ifndef _SIW2_SHIM_LINUX_LIMITS_H
#define _SIW2_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <stdint.h>

#define U8_MAX		UINT8_MAX
#define U16_MAX		UINT16_MAX
#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX

#endif
