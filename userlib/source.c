/* SPDX-License-Identifier: MIT */
/*
 * source.c - the source rules of the contract, for the backends that cannot
 * rely on the kernel to enforce them: one private anonymous mapping covering
 * the whole range, or several adjacent ones with no hole (EFAULT), each of
 * them private anonymous (EINVAL), not registered with userfaultfd (EINVAL),
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
	uintptr_t end = r->old + r->old_size, addr;
	void *old = (void *)r->old;
	bool sealed = false, kind = true, uffd = false;
	unsigned int vmf = 0;
	struct mr_vma v;
	int err;

	/*
	 * Every part of a source of several mappings (no hole between them:
	 * EFAULT) must qualify.  Sealed VMAs refuse even an mprotect() that
	 * changes nothing; a sealed part is EPERM before any other check, as
	 * in mremap().
	 */
	s->nparts = 0;
	for (addr = r->old; addr < end; addr = v.end) {
		err = mr_vma_at(addr, &v);
		if (err)
			return err;
		if (!s->nparts++)
			s->prot = v.prot;
		if (mr_mseal_supported() &&
		    mprotect((void *)addr, (v.end < end ? v.end : end) - addr,
			     v.prot) && errno == EPERM)
			sealed = true;
		if (v.shared || v.file || !plain_anon_name(v.name) ||
		    (v.page_size && v.page_size != mr_page_size()))
			kind = false;
	}
	if (sealed)
		return EPERM;
	if (!kind)
		return EINVAL;

	err = mr_uffd_registered(r->old, r->old_size, &uffd);
	if (err)
		return err;	/* cannot check the source */
	if (uffd)
		return EINVAL;
	s->locked = false;
	s->onfault = false;
	if (s->nparts > 1)
		return 0;	/* mr_parts_move() looks at each part */
	/* MS_INVALIDATE refuses locked memory and does nothing to anonymous. */
	s->locked = msync(old, r->old_size, MS_INVALIDATE) && errno == EBUSY;
	if (s->locked) {
		err = mr_vmflags(r->old, &vmf);
		if (err)	/* out of memory, else cannot check the source */
			return err == ENOMEM ? ENOMEM : ENOTSUP;
		s->onfault = vmf & MR_VMF_LOCKONFAULT;
	}
	return 0;
}
