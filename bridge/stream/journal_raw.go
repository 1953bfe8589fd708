package stream

import (
	"fmt"
	"io"
	"os"

	"conductorbridge/bridge/rawsys"
)

// A journal's line is written with a raw write(2) where bridge/rawsys
// allows it, so that a line's append does not wake the Go runtime's
// sysmon (about 30 µs of CPU a line): on a local filesystem, decided
// once as the file is opened, and until raw calls on files stalled past
// their budget (rawsys.Guard), after which every journal writes with the
// ordinary write(2) for the rest of the run.

// rawFile is how a journal's open file is written.
type rawFile struct {
	ok    bool          // fd may be written raw
	fd    int           // the file's descriptor
	guard *rawsys.Guard // times raw calls (nil: the process's)
}

// setFile makes f the journal's file and decides whether it is written
// raw. Callers hold fmu.
func (j *Journal) setFile(f *os.File) {
	fd := int(f.Fd())
	j.f = f
	j.raw.fd, j.raw.ok = fd, rawsys.RawWrites(fd)
}

// writeLine writes all of line at the file's offset: raw while it may be,
// else with the ordinary write. A short raw write goes on from where it
// stopped; an error is returned with part of the line perhaps written,
// as from the ordinary write.
func (j *Journal) writeLine(line []byte) error {
	for len(line) > 0 {
		if !j.raw.ok || !j.raw.guard.Raw() {
			_, err := j.f.Write(line)
			return err
		}
		n, err := j.raw.guard.WriteFile(j.raw.fd, line)
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		line = line[n:]
	}
	return nil
}

// reportSlow logs, once in the process, the stall that stopped raw calls
// on files.
func (j *Journal) reportSlow() {
	if j.log == nil {
		return
	}
	if s := j.raw.guard.Unreported(); s != nil {
		j.log(fmt.Sprintf("journal %s: %v", j.Path, s))
	}
}
