/* SPDX-License-Identifier: GPL-2.0 */
/* arraysize.h: the number of elements of an array, for both programs. */
#ifndef RESCUE_ARRAYSIZE_H
#define RESCUE_ARRAYSIZE_H

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif
