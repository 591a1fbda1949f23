/* SPDX-License-Identifier: MIT */
/*
 * source.c - the source rules of the contract, for the backends that cannot
 * rely on the kernel to enforce them: one private anonymous mapping covering
 * the whole range (EFAULT, EINVAL), not registered with userfaultfd (EINVAL),
 * not sealed (EPERM).  Also reports protection and mlock state.
 *
 * Fast path (no mlock): PROCMAP_QUERY, mprotect where mseal exists, msync
 * and the userfaultfd question (uffd.c): constant time whatever the number
 * of mappings and descriptors.  Before Linux 6.11 the VMA comes from
 * /proc/self/maps, and a locked source's MLOCK_ONFAULT from smaps.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* Named anonymous memory that is still ordinary private memory. */
static bool plain_anon_name(const char *name)
{
	return !name[0] || !strcmp(name, "[heap]") ||
	       !strncmp(name, "[stack", 6) || !strncmp(name, "[anon:", 6);
}

int mr_source_check(const struct mr_req *r, struct mr_src *s)
{
	void *old = (void *)r->old;
	unsigned int vmf = 0;
	bool uffd = false;
	struct mr_vma v;
	int err;

	err = mr_vma_query(r->old, &v);
	if (err == ENOTTY)
		err = mr_vma_maps(r->old, &v);
	if (err)
		return err;
	if (r->old + r->old_size > v.end)
		return EFAULT;
	/* Sealed VMAs refuse even an mprotect() that changes nothing; a
	 * sealed source is EPERM before any other check, as in mremap(). */
	if (mr_mseal_supported() &&
	    mprotect(old, r->old_size, v.prot) && errno == EPERM)
		return EPERM;
	if (v.shared || v.file || !plain_anon_name(v.name) ||
	    (v.page_size && v.page_size != mr_page_size()))
		return EINVAL;

	s->prot = v.prot;
	/* MS_INVALIDATE refuses locked memory and does nothing to anonymous. */
	s->locked = msync(old, r->old_size, MS_INVALIDATE) && errno == EBUSY;
	s->onfault = false;
	err = mr_uffd_registered(r->old, r->old_size, &uffd);
	if (err)
		return err;	/* cannot check the source */
	if (uffd)
		return EINVAL;
	if (s->locked) {
		err = mr_vmflags(r->old, &vmf);
		if (err)	/* out of memory, else cannot check the source */
			return err == ENOMEM ? ENOMEM : ENOTSUP;
		s->onfault = vmf & MR_VMF_LOCKONFAULT;
	}
	return 0;
}
