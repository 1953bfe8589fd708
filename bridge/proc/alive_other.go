//go:build !unix

package proc

import "os"

// Alive reports whether process pid exists, as far as the platform says.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	_, err := os.FindProcess(pid)
	return err == nil
}
