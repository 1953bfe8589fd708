package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile profiles the process into path until the returned
// function is called: what `serve --cpu-profile` and bench's profiles are.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
