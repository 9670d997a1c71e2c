// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the trace events' definitions (siw2_trace.h, TRACE_SYSTEM siw2),
 * at the bottom of the driver, so that every file may trace without
 * using a file above it.
 */

#define CREATE_TRACE_POINTS
#include "siw2_trace.h"
