/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: min/max evaluate each argument once, and the
 * pointer comparison makes mixed argument types a compiler warning, as
 * the kernel's type check does (-Werror turns it into an error).
 */
#ifndef _SIW2_SHIM_LINUX_MINMAX_H
#define _SIW2_SHIM_LINUX_MINMAX_H

#define __siw2_shim_cmp(x, y, op) ({			\
	__auto_type _x = (x);				\
	__auto_type _y = (y);				\
	(void)(&_x == &_y);				\
	_x op _y ? _x : _y; })

#define min(x, y)		__siw2_shim_cmp(x, y, <)
#define max(x, y)		__siw2_shim_cmp(x, y, >)
#define min_t(type, x, y)	min((type)(x), (type)(y))
#define max_t(type, x, y)	max((type)(x), (type)(y))
#define clamp(v, lo, hi)	min(max(v, lo), hi)

#endif
