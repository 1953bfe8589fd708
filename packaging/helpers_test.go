package main

import (
	"context"
	"debug/macho"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The darwin binary is cross-built once per run, through the program's own
// -test-build, and reused as -binary by the other tests: linking ./app
// takes seconds even with a warm build cache.
var shared struct {
	once sync.Once
	dir  string // removed by TestMain
	res  result
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// testBuild returns the bundle made with -test-build (version 0.0.0-dev
// unless HEAD is tagged) and its binary.
func testBuild(t *testing.T) (result, string) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "packaging-test-"); shared.err != nil {
			return
		}
		shared.res, shared.err = run(context.Background(), options{
			Out: shared.dir, TestBuild: true, Repo: defaultRepo,
		}, io.Discard)
	})
	if shared.err != nil {
		t.Fatalf("-test-build: %v", shared.err)
	}
	return shared.res, filepath.Join(shared.res.App, "Contents", "MacOS", executable)
}

// makeFat wraps a thin Mach-O in a universal (fat) header with one slice,
// as lipo -create does, so the universal path is tested without lipo.
func makeFat(t *testing.T, thin string) string {
	t.Helper()
	f, err := macho.Open(thin)
	if err != nil {
		t.Fatal(err)
	}
	cpu, sub := f.Cpu, f.SubCpu
	f.Close()
	data, err := os.ReadFile(thin)
	if err != nil {
		t.Fatal(err)
	}
	const align = 14 // 16 KiB, arm64's page size
	hdr := []uint32{macho.MagicFat, 1, uint32(cpu), sub, 1 << align, uint32(len(data)), align}
	out := make([]byte, 1<<align, 1<<align+len(data))
	for i, v := range hdr {
		binary.BigEndian.PutUint32(out[i*4:], v)
	}
	fat := filepath.Join(t.TempDir(), "conductor-bridge-universal")
	if err := os.WriteFile(fat, append(out, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	return fat
}
