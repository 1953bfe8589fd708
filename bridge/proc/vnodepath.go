package proc

import (
	"bytes"
	"errors"
	"fmt"
)

// proc_info(2) call and flavor numbers, and the layout of struct
// proc_vnodepathinfo (<sys/proc_info.h>, <sys/proc_info_private.h>):
// two vnode_info_path, the current directory's then the root's, each a
// 152-byte vnode_info followed by a MAXPATHLEN path. Here, not in the
// darwin file, so that every platform's tests check them against the C
// compiler's layout of xnu's declarations (testdata/darwin_proc.c).
// sZomb is the kernel's p_stat of a process that has exited and awaits
// its parent (SZOMB, <sys/proc.h>): Zombie's test on macOS. Here, not in
// the darwin file, for the same check against testdata/darwin_proc.c.
const sZomb = 5

const (
	procInfoCallPIDInfo   = 2 // PROC_INFO_CALL_PIDINFO
	procPIDVnodePathInfo  = 9 // PROC_PIDVNODEPATHINFO
	vnodeInfoSize         = 152
	maxPathLen            = 1024 // MAXPATHLEN
	procVnodePathInfoSize = 2 * (vnodeInfoSize + maxPathLen)
)

// cwdFromVnodePathInfo reads the current directory's path out of the n
// bytes of a proc_vnodepathinfo the kernel filled (it zeroes the struct,
// then copies each path NUL-ended).
func cwdFromVnodePathInfo(buf []byte, n int) (string, error) {
	if n < vnodeInfoSize+maxPathLen || len(buf) < vnodeInfoSize+maxPathLen {
		return "", fmt.Errorf("short answer (%d bytes)", n)
	}
	path := buf[vnodeInfoSize : vnodeInfoSize+maxPathLen]
	if i := bytes.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	if len(path) == 0 {
		return "", errors.New("none")
	}
	return string(path), nil
}
