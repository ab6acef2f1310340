// SPDX-License-Identifier: MIT
/*
 * Prints the device-state lists of model/tern_state.h, one line per value
 * with an attribute: "SET ATTRIBUTE TYPE VALUE", the attribute spelled as
 * tern.yaml spells it ("mem-used" for DRM_TERN_A_DEV_MEM_USED), for
 * check_yaml.py to hold Documentation/netlink/tern.yaml to them.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tern_state.h"

/* "DRM_TERN_A_DEV_MEM_USED" less "DRM_TERN_A_DEV_": "mem-used". */
static void print_line(const char *set, const char *prefix, const char *attr,
		       unsigned int value, const char *type)
{
	printf("%s ", set);
	for (const char *c = attr + strlen(prefix); *c; c++)
		putchar(*c == '_' ? '-' : tolower((unsigned char)*c));
	printf(" %s %u\n", type, value);
}

#define TYPE_U32 "u32"
#define TYPE_U64 "u64"
#define LINE(set, prefix, type, attr) \
	if (attr) \
		print_line(set, prefix, #attr, attr, TYPE_##type)

int main(void)
{
#define TERN_DEVICE_VALUE(name, type, attr, unit, metric, text, help) \
	LINE("device", "DRM_TERN_A_DEV_", type, attr);
#define TERN_ENGINE_VALUE(name, type, attr, unit, metric, text, help) \
	LINE("engine", "DRM_TERN_A_ENGINE_", type, attr);
#define TERN_LINK_VALUE(name, type, attr, unit, metric, text, help) \
	LINE("link", "DRM_TERN_A_LINK_", type, attr);
#define TERN_CLIENT_VALUE(name, type, attr, unit, metric, text, help) \
	LINE("client", "DRM_TERN_A_CLIENT_", type, attr);
#include "tern_state_list.h"
	return 0;
}
