package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// parseProcArgs reads macOS's kern.procargs2 layout (here, not in the
// darwin file, so that every platform's tests check it against
// testdata/darwin_proc.c, which writes it as xnu's sysctl_procargsx does):
// a C int argc in host byte order, the executable's path, NUL padding to
// pointer alignment, then argc NUL-ended arguments. What follows them (the
// environment, then the "apple" strings) is not looked at.
func parseProcArgs(buf []byte) ([]string, error) {
	if len(buf) < 4 {
		return nil, errors.New("short procargs")
	}
	argc := int(int32(binary.NativeEndian.Uint32(buf)))
	if argc < 0 {
		return nil, fmt.Errorf("argc %d", argc)
	}
	rest := buf[4:]
	end := bytes.IndexByte(rest, 0) // the executable's path
	if end < 0 {
		return nil, errors.New("no executable path")
	}
	rest = rest[end:]
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	args := make([]string, 0, min(argc, len(rest))) // each argument takes a byte at least
	for len(args) < argc && len(rest) > 0 {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			end = len(rest)
		}
		args = append(args, string(rest[:end]))
		rest = rest[min(end+1, len(rest)):]
	}
	return args, nil
}
