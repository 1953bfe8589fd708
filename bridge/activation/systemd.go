package activation

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// env is the process environment, a fake in tests.
type env interface {
	Getenv(string) string
	Unsetenv(string) error
	Getpid() int
}

type osEnv struct{}

func (osEnv) Getenv(k string) string  { return os.Getenv(k) }
func (osEnv) Unsetenv(k string) error { return os.Unsetenv(k) }
func (osEnv) Getpid() int             { return os.Getpid() }

// listenFDsStart is SD_LISTEN_FDS_START: the first handed descriptor.
const listenFDsStart = 3

// systemdFiles reads systemd's socket-passing protocol (sd_listen_fds(3)):
// LISTEN_PID names the process the sockets are for, LISTEN_FDS how many
// there are, from descriptor 3 on, and LISTEN_FDNAMES their names, colon
// separated. The variables are removed either way, as
// sd_listen_fds(unset_environment=1) does, so that no child process
// mistakes them for its own.
func systemdFiles(e env) ([]*fileDesc, error) {
	pid, fds, names := e.Getenv("LISTEN_PID"), e.Getenv("LISTEN_FDS"), e.Getenv("LISTEN_FDNAMES")
	for _, k := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		e.Unsetenv(k)
	}
	if pid == "" || fds == "" {
		return nil, ErrNone
	}
	if p, err := strconv.Atoi(pid); err != nil || p != e.Getpid() {
		return nil, ErrNone // meant for another process (a parent's, inherited)
	}
	n, err := strconv.Atoi(fds)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("systemd: LISTEN_FDS=%q is not a count", fds)
	}
	if n == 0 {
		return nil, ErrNone
	}
	var nameList []string
	if names != "" {
		nameList = strings.Split(names, ":")
	}
	out := make([]*fileDesc, n)
	for i := range out {
		name := "LISTEN_FD_" + strconv.Itoa(listenFDsStart+i)
		if i < len(nameList) && nameList[i] != "" {
			name = nameList[i]
		}
		out[i] = &fileDesc{fd: listenFDsStart + i, name: name}
	}
	return out, nil
}
