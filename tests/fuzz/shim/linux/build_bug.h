/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: the kernel's one-argument static_assert(). C11's
 * _Static_assert wants a message, so the expression is its own message.
 */
#ifndef _SIW2_SHIM_LINUX_BUILD_BUG_H
#define _SIW2_SHIM_LINUX_BUILD_BUG_H

#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#define BUILD_BUG_ON(cond)		_Static_assert(!(cond), #cond)

#endif
