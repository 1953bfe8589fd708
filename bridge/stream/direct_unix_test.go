//go:build unix

package stream

import (
	"bytes"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

// A direct write takes what a full socket has room for and no more, and
// nothing with EAGAIN once it is full; finishing waits for the socket to
// drain and writes the rest: the other end reads every byte, in order.
func TestDirectWritesStopAtAFullSocket(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours := os.NewFile(uintptr(fds[0]), "ours")
	conn, err := net.FileConn(ours) // non-blocking, as a served connection is
	ours.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer := os.NewFile(uintptr(fds[1]), "peer")
	defer peer.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4<<20) // more than a socket buffer holds
	for i := range data {
		data[i] = byte(i % 251)
	}
	var w tryWriter
	n, err := w.try(raw, data)
	if err != nil || n <= 0 || n >= len(data) {
		t.Fatalf("try into an empty socket = %d, %v; want part of %d", n, err, len(data))
	}
	if m, err := w.try(raw, data[n:]); m != 0 || err != syscall.EAGAIN {
		t.Fatalf("try into a full socket = %d, %v; want 0, EAGAIN", m, err)
	}
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(peer)
		read <- b
	}()
	if err := finishWrite(raw, data[n:]); err != nil {
		t.Fatalf("finishWrite: %v", err)
	}
	conn.Close()
	if got := <-read; !bytes.Equal(got, data) {
		t.Errorf("the other end read %d bytes, not the %d written in order", len(got), len(data))
	}
}
