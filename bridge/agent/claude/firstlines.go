package claude

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"conductorbridge/bridge/transcript"
)

// firstLines calls fn with each of the first n non-empty lines of r
// (blanks trimmed) until fn returns false. A line longer than the streams
// read is skipped, as they skip it, and not counted.
func firstLines(r io.Reader, n int, fn func(line []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for n > 0 {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if len(long) <= transcript.DefaultMaxLine {
					long = append(long, line...)
				}
			}
			if len(long) > transcript.DefaultMaxLine {
				if err != nil {
					return eofNil(err)
				}
				continue
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			n--
			if !fn(t) {
				return nil
			}
		}
		if err != nil {
			return nil
		}
	}
	return nil
}

func eofNil(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
