/* SPDX-License-Identifier: MIT */
/*
 * test_abi.c - the shared library: linked dynamically, it works and exports
 * the API and nothing else.
 */
#include <dlfcn.h>

#include "../tap.h"
#include "util.h"

int main(void)
{
	static const char *const api[] = {
		"mremap_retain", "mremap_retain_backend", "mremap_retain_set_backend",
		"mremap_retain_backend_name", "mremap_retain_decommit",
	};
	static const char *const internal[] = {
		"mr_args", "mr_source_check", "mr_page_size", "mr_copy_move",
		"mr_decommit_method", "mr_proc_lines",
	};
	size_t len = 2 * PS;
	char *src = map_anon(len, PROT_READ | PROT_WRITE), *r;
	int found = 0, leaked = 0;

	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		found += dlsym(RTLD_DEFAULT, api[i]) != NULL;
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		leaked += dlsym(RTLD_DEFAULT, internal[i]) != NULL;
	tap_ok(found == 5, "the 5 API functions are exported (%d)", found);
	tap_ok(leaked == 0, "internal functions are not (%d)", leaked);

	fill(src, len, 60);
	r = mremap_retain(src, len, 2 * len, 0);
	tap_ok(r != MAP_FAILED && has_pattern(r, len, 60) && is_zero(src, len),
	       "a move through the shared library");
	return tap_done();
}
