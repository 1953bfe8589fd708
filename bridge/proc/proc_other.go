//go:build !linux && !darwin

package proc

import "errors"

var errUnsupported = errors.New("no process table on this system")

// List has no process table to read here.
func List() ([]Process, error) { return nil, errUnsupported }

const procRoot = ""

func list(string, func(int, string) (Process, bool)) ([]Process, error) { return nil, errUnsupported }

// Args has no process table to read here.
func Args(pid int) ([]string, error) { return nil, errUnsupported }

// Cwd has no process table to read here.
func Cwd(pid int) (string, error) { return "", errUnsupported }

// Parent has no process table to read here.
func Parent(pid int) (Process, int, error) { return Process{}, 0, errUnsupported }

// Zombie cannot tell here.
func Zombie(pid int) bool { return false }
