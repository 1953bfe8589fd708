package rawsys

import "errors"

// Here there are no raw calls: the Guard's are never made (RawWrites
// accepts no file).

func preadNoWait(int, []byte, int64) (int, error) { return 0, errors.ErrUnsupported }

func writeFile(int, []byte) (int, error) { return 0, errors.ErrUnsupported }

// RawWrites accepts no file here.
func RawWrites(int) bool { return false }
