//go:build unix

package stream

import "syscall"

// tryWrite makes one non-blocking write(2) of b to c, never waiting for
// the socket to drain.
func tryWrite(c syscall.RawConn, b []byte) (int, error) {
	var n int
	var werr error
	err := c.Write(func(fd uintptr) bool {
		n, werr = syscall.Write(int(fd), b)
		return true // done, whatever it took
	})
	if n < 0 {
		n = 0
	}
	if err != nil {
		return n, err
	}
	return n, werr
}

// finishWrite writes all of b to c, waiting for the socket as a write
// does (until the connection's write deadline).
func finishWrite(c syscall.RawConn, b []byte) error {
	var werr error
	err := c.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, e := syscall.Write(int(fd), b)
			if e == syscall.EAGAIN {
				return false // wait until writable
			}
			if e != nil {
				werr = e
				return true
			}
			b = b[n:]
		}
		return true
	})
	if err != nil {
		return err
	}
	return werr
}
