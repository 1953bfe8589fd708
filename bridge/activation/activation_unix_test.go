//go:build unix

package activation

import (
	"errors"
	"net"
	"os"
	"reflect"
	"syscall"
	"testing"
)

type fakeEnv struct {
	vars map[string]string
	pid  int
}

func (e *fakeEnv) Getenv(k string) string  { return e.vars[k] }
func (e *fakeEnv) Unsetenv(k string) error { delete(e.vars, k); return nil }
func (e *fakeEnv) Getpid() int             { return e.pid }

func TestSystemdEnvironment(t *testing.T) {
	type fd struct {
		FD   int
		Name string
	}
	tests := []struct {
		name string
		vars map[string]string
		want []fd
		err  error // nil: no error; ErrNone; or any other error
	}{
		{"nothing", nil, nil, ErrNone},
		{"one, named", map[string]string{"LISTEN_PID": "42", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "conductor-bridge.socket"},
			[]fd{{3, "conductor-bridge.socket"}}, nil},
		{"two, unnamed", map[string]string{"LISTEN_PID": "42", "LISTEN_FDS": "2"},
			[]fd{{3, "LISTEN_FD_3"}, {4, "LISTEN_FD_4"}}, nil},
		{"for another process", map[string]string{"LISTEN_PID": "41", "LISTEN_FDS": "1"}, nil, ErrNone},
		{"no pid", map[string]string{"LISTEN_FDS": "1"}, nil, ErrNone},
		{"none", map[string]string{"LISTEN_PID": "42", "LISTEN_FDS": "0"}, nil, ErrNone},
		{"not a count", map[string]string{"LISTEN_PID": "42", "LISTEN_FDS": "x"}, nil, errors.New("any")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"HOME": "/h"}
			for k, v := range tt.vars {
				vars[k] = v
			}
			e := &fakeEnv{vars: vars, pid: 42}
			files, err := systemdFiles(e)
			switch {
			case tt.err == nil && err != nil, tt.err != nil && err == nil,
				errors.Is(tt.err, ErrNone) != errors.Is(err, ErrNone):
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			var got []fd
			for _, f := range files {
				got = append(got, fd{f.fd, f.name})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("descriptors %v, want %v", got, tt.want)
			}
			// Whatever they said, they are gone: no child inherits them.
			if len(e.vars) != 1 {
				t.Errorf("environment left: %v", e.vars)
			}
		})
	}
}

// dupFD returns a bare duplicate descriptor of what f wraps, as a
// service manager would hand it over (no *os.File to close it behind our
// back).
func dupFD(t *testing.T, f interface{ File() (*os.File, error) }) *fileDesc {
	t.Helper()
	file, err := f.File()
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	fd, err := syscall.Dup(int(file.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return &fileDesc{fd: fd, name: "test"}
}

func TestOnlyOneTCPListenerIsServed(t *testing.T) {
	tcp := func() *fileDesc {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return dupFD(t, ln.(*net.TCPListener))
	}
	unix := func() *fileDesc {
		ln, err := net.Listen("unix", t.TempDir()+"/s")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return dupFD(t, ln.(*net.UnixListener))
	}
	notSocket := func() *fileDesc {
		r, w, _ := os.Pipe()
		defer r.Close()
		w.Close()
		fd, _ := syscall.Dup(int(r.Fd()))
		return &fileDesc{fd: fd, name: "pipe"}
	}
	if ln, err := tcpListener([]*fileDesc{tcp()}); err != nil {
		t.Errorf("one TCP listener: %v", err)
	} else {
		ln.Close()
	}
	for name, files := range map[string][]*fileDesc{
		"a Unix socket": {unix()},
		"two":           {tcp(), tcp()},
		"a pipe":        {notSocket()},
		"none":          nil,
	} {
		if ln, err := tcpListener(files); err == nil {
			ln.Close()
			t.Errorf("%s: served", name)
		}
	}
}
