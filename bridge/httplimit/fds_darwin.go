package httplimit

import "golang.org/x/sys/unix"

// perProcess caps a soft RLIMIT_NOFILE at kern.maxfilesperproc. Since
// xnu-7195 (macOS 11), setrlimit accepts any soft limit up to the hard one
// (bsd/kern/kern_resource.c dosetrlimit: "Nothing to be done here … The
// real NOFILE limits enforced by the kernel is capped at
// MIN(RLIMIT_NOFILE, maxfilesperproc)"), and every descriptor allocation
// checks proc_limitgetcur_nofile(), which is that minimum
// (kern_resource.c; its callers in bsd/kern/kern_descrip.c: fdalloc,
// dup2, fcntl F_DUPFD, getdtablesize). Read at xnu-11417.101.15.
func perProcess(soft uint64) uint64 {
	n, err := unix.SysctlUint32("kern.maxfilesperproc")
	if err != nil || n == 0 {
		return soft
	}
	return min(soft, uint64(n))
}
