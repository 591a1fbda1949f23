/* SPDX-License-Identifier: MIT */
/*
 * source.c - the source rules of the contract, for the backends that cannot
 * rely on the kernel to enforce them: one private anonymous mapping covering
 * the whole range, or several adjacent ones with no hole (EFAULT), each of
 * them private anonymous (EINVAL), not registered with userfaultfd (EINVAL),
 * not sealed (EPERM).  Also reports protection and mlock state.
 *
 * Fast path (no mlock): PROCMAP_QUERY, the userfaultfd question (uffd.c:
 * one system call for a source of one mapping from Linux 5.13), msync,
 * and an mprotect where mseal exists and the kernel's own mremap() does
 * not refuse a sealed source for us: constant time whatever the number
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

/* Is any part of the source sealed?  Sealed VMAs refuse even an mprotect()
 * that changes nothing. */
static bool source_sealed(const struct mr_req *r, const struct mr_src *s)
{
	uintptr_t end = r->old + r->old_size, addr, to;
	struct mr_vma v;

	if (s->nparts == 1)
		return mprotect((void *)r->old, r->old_size, s->prot) &&
		       errno == EPERM;
	for (addr = r->old; addr < end; addr = to) {
		if (mr_vma_at(addr, &v))
			return false;	/* gone meanwhile: the move will tell */
		to = v.end < end ? v.end : end;
		if (mprotect((void *)addr, to - addr, v.prot) && errno == EPERM)
			return true;
	}
	return false;
}

int mr_source_check(const struct mr_req *r, struct mr_src *s,
		    bool kernel_seals)
{
	uintptr_t end = r->old + r->old_size, addr;
	void *old = (void *)r->old;
	bool kind = true, uffd = false;
	unsigned int vmf = 0;
	struct mr_vma v;
	int err;

	/* Every part of a source of several mappings (no hole between them:
	 * EFAULT) must qualify. */
	s->nparts = 0;
	s->locked = false;
	s->onfault = false;
	for (addr = r->old; addr < end; addr = v.end) {
		err = mr_vma_at(addr, &v);
		if (err)
			return err;
		if (!s->nparts++)
			s->prot = v.prot;
		if (v.shared || v.file || !plain_anon_name(v.name) ||
		    (v.page_size && v.page_size != mr_page_size()))
			kind = false;
	}
	if (!kind)
		err = EINVAL;
	else if (s->nparts > 1 ||
		 mr_uffd_one_registered(r->old, r->old_size, &uffd))
		err = mr_uffd_registered(r->old, r->old_size, &uffd, NULL);
	if (!err && uffd)
		err = EINVAL;
	/* MS_INVALIDATE refuses locked memory and does nothing to anonymous;
	 * mr_parts_move() looks at each part of a source of several. */
	if (!err && s->nparts == 1 &&
	    msync(old, r->old_size, MS_INVALIDATE) && errno == EBUSY) {
		s->locked = true;
		err = mr_vmflags(r->old, &vmf);
		if (err)	/* out of memory, else cannot check the source */
			err = err == ENOMEM ? ENOMEM : ENOTSUP;
		s->onfault = vmf & MR_VMF_LOCKONFAULT;
	}
	/*
	 * A sealed part is EPERM before any other answer, as in mremap().
	 * Where mremap() moves a plain one-mapping source itself, it refuses
	 * a sealed one before it changes anything; everywhere else (another
	 * answer, several parts, a locked source, a backend that does not
	 * leave the move to mremap()) the library asks.
	 */
	if (mr_mseal_supported() &&
	    (err || !kernel_seals || s->nparts > 1 || s->locked) &&
	    source_sealed(r, s))
		return EPERM;
	return err;
}
