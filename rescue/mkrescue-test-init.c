// SPDX-License-Identifier: GPL-2.0
/* mkrescue-test-init.c: a static stand-in for rescue-init in mkrescue's tests. */
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argc;
	printf("mkrescue test init: %s\n", argv[0]);
	return 0;
}
