package httplimit

import (
	"syscall"
	"testing"
)

// TestFileLimitIsWhatTheKernelEnforces runs on a Mac (macos.yml): a soft
// limit as high as the hard one is accepted, whatever kern.maxfilesperproc
// says, and FileLimit is then what the kernel itself reports as this
// process's descriptor table size (getdtablesize returns
// proc_limitgetcur_nofile, bsd/kern/kern_descrip.c).
func TestFileLimitIsWhatTheKernelEnforces(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	for _, soft := range []uint64{256, orig.Max} {
		r := orig
		r.Cur = soft
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			t.Fatalf("setrlimit(soft %d, hard %d): %v; macOS 11 and later accept any soft limit up to the hard one", soft, r.Max, err)
		}
		got, ok := FileLimit()
		if want := uint64(syscall.Getdtablesize()); !ok || got != want {
			t.Errorf("soft %d: FileLimit() = %d, %v; the kernel's getdtablesize() = %d", soft, got, ok, want)
		}
	}
}
