// Package cctest builds the small C programs that tests use as an oracle
// for macOS's kernel structures: each one declares the structs the code
// reads by offset, transcribed from Apple's open source with the same
// types, order and #pragma pack, and the machine's C compiler lays them
// out. A test compares that layout with the Go constants, and runs the
// program to write sample buffers the Go parsers must read back. What the
// Go code assumes is then checked by something other than itself.
//
// The programs are compiled for the host's LP64 ABI. On every LP64 target
// Apple ships (arm64, x86_64) and on Linux x86_64 and arm64, the C types
// these structs use (char, short, int, long, long long, pointers, and
// arrays, structs and unions of them) have the same sizes and alignments,
// and #pragma pack(n) caps member alignment at n in gcc and clang alike;
// each program checks LP64 itself with a static assertion.
package cctest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Compiler returns the C compiler: $CC, else cc, gcc or clang on PATH.
// Without one the test is skipped, except under CI=true, where a missing
// compiler is a broken image and fails the test (CI installs gcc).
func Compiler(t testing.TB) string {
	t.Helper()
	names := []string{"cc", "gcc", "clang"}
	if cc := os.Getenv("CC"); cc != "" {
		names = []string{cc}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("cctest: no C compiler (%s) on PATH; CI installs gcc", strings.Join(names, ", "))
	}
	t.Skipf("cctest: no C compiler (%s) on PATH: the layout oracle needs one (Debian: apt-get install gcc libc6-dev)", strings.Join(names, ", "))
	return ""
}

// Build compiles the C file src, strictly (C11, every warning an error),
// and returns the program's path in a temporary folder.
func Build(t testing.TB, src string) string {
	t.Helper()
	cc := Compiler(t)
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	// -std=c11 keeps the C library's BSD typedefs (u_int32_t, u_quad_t…)
	// out of scope: the programs declare Darwin's own.
	cmd := exec.Command(cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O0", "-o", exe, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cctest: %s %s: %v\n%s", cc, src, err, out)
	}
	return exe
}

// Run runs the program with args and returns what it wrote to stdout.
func Run(t testing.TB, exe string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cctest: %s %s: %v\n%s", exe, strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// Layout runs the program with the single argument "layout" and reads
// what it prints: one "name value" line per offset, size or constant.
func Layout(t testing.TB, exe string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for line := range strings.Lines(string(Run(t, exe, "layout"))) {
		name, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			t.Fatalf("cctest: layout line %q is not \"name value\"", line)
		}
		n, err := strconv.Atoi(val)
		if err != nil {
			t.Fatalf("cctest: layout line %q: %v", line, err)
		}
		m[name] = n
	}
	return m
}

// Compare fails the test for each name whose Go value differs from the
// C program's, or that the program did not print.
func Compare(t testing.TB, layout map[string]int, want map[string]int) {
	t.Helper()
	for name, goVal := range want {
		cVal, ok := layout[name]
		switch {
		case !ok:
			t.Errorf("%s: not in the C program's layout", name)
		case cVal != goVal:
			t.Errorf("%s: Go says %d, the C compiler lays it out at %d", name, goVal, cVal)
		}
	}
}
