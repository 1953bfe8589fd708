//go:build darwin && cgo

package activation

// launch_activate_socket is libSystem's (<launch.h>, macOS 10.10+): it
// hands the calling job the descriptors launchd bound for the named
// Sockets entry of its plist, in an array the caller frees.

/*
#include <stdlib.h>
#include <launch.h>
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

// launchdFiles checks in with launchd for the sockets of the plist's
// Sockets entry name. ESRCH (not started by launchd) and ENOENT (no such
// entry: an older plist) mean there are none.
func launchdFiles(name string) ([]*fileDesc, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var fds *C.int
	var cnt C.size_t
	if rc := C.launch_activate_socket(cname, &fds, &cnt); rc != 0 {
		switch errno := syscall.Errno(rc); errno {
		case syscall.ESRCH, syscall.ENOENT:
			return nil, ErrNone
		default:
			return nil, fmt.Errorf("launchd: launch_activate_socket(%q): %w", name, errno)
		}
	}
	defer C.free(unsafe.Pointer(fds))
	out := make([]*fileDesc, int(cnt))
	for i, fd := range unsafe.Slice(fds, int(cnt)) {
		out[i] = &fileDesc{fd: int(fd), name: name}
	}
	return out, nil
}
