//go:build darwin

package proc

import (
	"bytes"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// List reads the process table through sysctl kern.proc.all, then each
// process's arguments through kern.procargs2. Another user's process is
// listed with its name only (the kernel refuses its arguments).
func List() ([]Process, error) {
	return list(procRoot, nil)
}

// procRoot names no folder here: sysctl is asked.
const procRoot = ""

// list reads the table; a process reuse gives (Table), by pid and name,
// keeps its arguments rather than asking for them again.
func list(_ string, reuse func(pid int, comm string) (Process, bool)) ([]Process, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("read the process table: %w", err)
	}
	out := make([]Process, 0, len(kps))
	for i := range kps {
		pid := int(kps[i].Proc.P_pid)
		if pid <= 0 {
			continue // the kernel
		}
		comm := kps[i].Proc.P_comm[:]
		if n := bytes.IndexByte(comm, 0); n >= 0 {
			comm = comm[:n]
		}
		if reuse != nil {
			if p, ok := reuse(pid, string(comm)); ok {
				out = append(out, p)
				continue
			}
		}
		p := Process{PID: pid, Comm: string(comm)}
		p.Args, _ = Args(pid)
		out = append(out, p)
	}
	return out, nil
}

// Args reads one process's arguments from kern.procargs2: an int32 argc,
// the executable's path, NUL padding, then argc NUL-ended arguments. The
// environment follows them in the same buffer; it is never parsed, and
// the buffer is cleared before it is dropped.
func Args(pid int) ([]string, error) {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, fmt.Errorf("arguments of %d: %w", pid, err)
	}
	defer clear(buf)
	args, err := parseProcArgs(buf)
	if err != nil {
		return nil, fmt.Errorf("arguments of %d: %w", pid, err)
	}
	return args, nil
}

// Cwd reads a process's working directory with proc_pidinfo
// (PROC_PIDVNODEPATHINFO), the call libproc makes, as a raw syscall.
func Cwd(pid int) (string, error) {
	var buf [procVnodePathInfoSize]byte
	n, _, errno := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPIDInfo, uintptr(pid), procPIDVnodePathInfo, 0,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if errno != 0 {
		return "", fmt.Errorf("working directory of %d: %w", pid, errno)
	}
	cwd, err := cwdFromVnodePathInfo(buf[:], int(n))
	if err != nil {
		return "", fmt.Errorf("working directory of %d: %w", pid, err)
	}
	return cwd, nil
}

// Parent reads one process's entry and its parent's pid through sysctl
// kern.proc.pid, and its arguments through kern.procargs2.
func Parent(pid int) (Process, int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Process{}, 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	if int(kp.Proc.P_pid) != pid {
		return Process{}, 0, fmt.Errorf("status of %d: no such process", pid)
	}
	comm := kp.Proc.P_comm[:]
	if n := bytes.IndexByte(comm, 0); n >= 0 {
		comm = comm[:n]
	}
	p := Process{PID: pid, Comm: string(comm)}
	p.Args, _ = Args(pid)
	return p, int(kp.Eproc.Ppid), nil
}

// Zombie reports whether pid has exited and waits only for its parent to
// reap it: it runs nothing and writes nothing, though its pid answers
// signals and its name still shows.
func Zombie(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(kp.Proc.P_pid) == pid && kp.Proc.P_stat == sZomb
}
