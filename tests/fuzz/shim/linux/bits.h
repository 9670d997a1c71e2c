/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in: single-bit and mask helpers. */
#ifndef _SIW2_SHIM_LINUX_BITS_H
#define _SIW2_SHIM_LINUX_BITS_H

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
/* Bits l..h set, h >= l, in an unsigned long. */
#define GENMASK(h, l)	((~0UL >> (63 - (h))) & (~0UL << (l)))

#endif
