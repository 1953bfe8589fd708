package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// squatterEnv makes this test binary (TestMain) a squatter: a program that
// listens on a free port of 127.0.0.1, as a bridge would, answers /health
// as a bridge does, and reports every byte any client sends it.
const squatterEnv = "CB_TEST_SQUATTER"

// squat prints "PORT <n>", then "GOT <bytes>" for each read from any
// client, until stdin closes.
func squat() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	out := make(chan string, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(io.TeeReader(c, reporter(out)))
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					const body = `{"status":"healthy","service":"conductor-bridge"}`
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}()
		}
	}()
	fmt.Printf("PORT %d\n", ln.Addr().(*net.TCPAddr).Port)
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	for {
		select {
		case s := <-out:
			fmt.Printf("GOT %q\n", s)
		case <-done:
			ln.Close()
			for {
				select {
				case s := <-out:
					fmt.Printf("GOT %q\n", s)
				default:
					return 0
				}
			}
		}
	}
}

type reporter chan string

func (r reporter) Write(b []byte) (int, error) { r <- string(b); return len(b), nil }

// squatter is a running squat, as cred's user (nil: this one).
type squatter struct {
	port  int
	stdin io.WriteCloser
	out   *bufio.Scanner
	cmd   *exec.Cmd
}

func startSquatter(t *testing.T, bin string, cred *syscall.Credential) *squatter {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{squatterEnv + "=1", "PATH=/usr/bin:/bin"}
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &squatter{stdin: stdin, out: bufio.NewScanner(stdout), cmd: cmd}
	t.Cleanup(func() { s.stop() })
	if !s.out.Scan() {
		t.Fatalf("squatter said nothing: %v", s.out.Err())
	}
	p, ok := strings.CutPrefix(s.out.Text(), "PORT ")
	if !ok {
		t.Fatalf("squatter: %s", s.out.Text())
	}
	s.port, _ = strconv.Atoi(p)
	return s
}

// stop ends the squatter and returns everything clients sent it.
func (s *squatter) stop() string {
	if s.cmd.ProcessState != nil {
		return ""
	}
	s.stdin.Close()
	var got strings.Builder
	for s.out.Scan() {
		if q, ok := strings.CutPrefix(s.out.Text(), "GOT "); ok {
			v, _ := strconv.Unquote(q)
			got.WriteString(v)
		}
	}
	s.cmd.Wait()
	return got.String()
}

// TestSquatterAnswersLikeABridge: the stand-in is good enough to fool a
// check of /health alone, so the tests that use it prove the host looks
// further than that.
func TestSquatterAnswersLikeABridge(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := startSquatter(t, self, nil)
	h, err := tcpHealth(t.Context(), fmt.Sprintf("127.0.0.1:%d", s.port))
	if err != nil || h.Service != "conductor-bridge" {
		t.Fatalf("squatter's /health: %+v %v", h, err)
	}
	if got := s.stop(); !strings.Contains(got, "GET /health") {
		t.Errorf("squatter reported %q", got)
	}
}
