//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// List reads every process in /proc. Processes that exit while it runs,
// and kernel threads, are skipped; another user's process is listed with
// its name and arguments where the kernel shows them.
func List() ([]Process, error) {
	return list(procRoot, nil)
}

// procRoot is where the process table is read (a test's is a folder).
const procRoot = "/proc"

// list reads the table under root. A process reuse gives (Table) is not
// read again; Linux's names are in the files, so reuse is asked by pid
// alone (comm "").
func list(root string, reuse func(pid int, comm string) (Process, bool)) ([]Process, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read the process table: %w", err)
	}
	out := make([]Process, 0, len(entries))
	buf := make([]byte, 0, 4096) // one buffer for every file read
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if reuse != nil {
			if p, ok := reuse(pid, ""); ok {
				out = append(out, p)
				continue
			}
		}
		dir := root + "/" + e.Name()
		comm, err := readSmall(dir+"/comm", buf[:0])
		if err != nil {
			continue // gone
		}
		buf = comm[:0]
		p := Process{PID: pid, Comm: strings.TrimSpace(string(comm))}
		if cmdline, err := readSmall(dir+"/cmdline", buf[:0]); err == nil && len(cmdline) > 0 {
			p.Args = strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
			buf = cmdline[:0]
		}
		out = append(out, p)
	}
	return out, nil
}

// readSmall reads a /proc file into b with open, read and close only:
// os.ReadFile also stats the file twice (to size a buffer /proc files
// never fill) and allocates, and the table is read on every scan, a few
// hundred files each time. A read is retried on EINTR.
func readSmall(path string, b []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// Args reads one process's arguments.
func Args(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, fmt.Errorf("arguments of %d: %w", pid, err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("arguments of %d: none (a kernel thread, or exiting)", pid)
	}
	return strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00"), nil
}

// Cwd reads a process's working directory. The kernel gives the resolved
// path; a directory since removed is an error.
func Cwd(pid int) (string, error) {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return "", fmt.Errorf("working directory of %d: %w", pid, err)
	}
	if strings.HasSuffix(cwd, " (deleted)") {
		return "", fmt.Errorf("working directory of %d: removed", pid)
	}
	return cwd, nil
}

// Parent reads one process's entry and its parent's pid, from
// /proc/<pid>/stat ("pid (comm) state ppid …": the command name may hold
// spaces and parentheses, so the fields after it are found from the last
// ")") and /proc/<pid>/cmdline.
func Parent(pid int) (Process, int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Process{}, 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	p, ppid, err := parseStat(b)
	if err != nil {
		return Process{}, 0, fmt.Errorf("status of %d: %w", pid, err)
	}
	p.PID = pid
	p.Args, _ = Args(pid)
	return p, ppid, nil
}

// Zombie reports whether pid has exited and waits only for its parent to
// reap it: it runs nothing and writes nothing, though its pid answers
// signals and its name still shows.
func Zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return false
	}
	fields := strings.Fields(string(b[end+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}
