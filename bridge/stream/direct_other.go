//go:build !unix

package stream

import (
	"errors"
	"syscall"
)

var errNoDirect = errors.New("no direct writes here")

type tryWriter struct{}

func (*tryWriter) try(syscall.RawConn, []byte) (int, error) { return 0, errNoDirect }
func finishWrite(syscall.RawConn, []byte) error             { return errNoDirect }
