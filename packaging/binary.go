package main

import (
	"bytes"
	"context"
	"debug/macho"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// checkMachO makes sure path is a macOS executable, thin or universal, for
// arm64 and/or amd64: a Linux build dropped into the bundle would only fail
// on a Mac, at launch.
func checkMachO(path string) ([]string, error) {
	fat, err := macho.OpenFat(path)
	switch {
	case err == nil:
		defer fat.Close()
		var arches []string
		for _, a := range fat.Arches {
			arch, err := checkThin(a.File)
			if err != nil {
				return nil, fmt.Errorf("%s (universal, %s slice): %w", path, a.Cpu, err)
			}
			arches = append(arches, arch)
		}
		return arches, nil
	case !errors.Is(err, macho.ErrNotFat):
		return nil, fmt.Errorf("%s: %w", path, describeNotMachO(path, err))
	}
	f, err := macho.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, describeNotMachO(path, err))
	}
	defer f.Close()
	arch, err := checkThin(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return []string{arch}, nil
}

func checkThin(f *macho.File) (string, error) {
	if f.Type != macho.TypeExec {
		return "", fmt.Errorf("Mach-O file type %v, want an executable", f.Type)
	}
	switch f.Cpu {
	case macho.CpuArm64:
		return "arm64", nil
	case macho.CpuAmd64:
		return "amd64", nil
	}
	return "", fmt.Errorf("Mach-O for %v, want arm64 or amd64", f.Cpu)
}

// describeNotMachO says what the file is instead, for the likely mistakes.
func describeNotMachO(path string, err error) error {
	head := make([]byte, 4)
	if f, oerr := os.Open(path); oerr == nil {
		_, _ = io.ReadFull(f, head)
		f.Close()
	}
	switch {
	case bytes.Equal(head, []byte("\x7fELF")):
		return errors.New("an ELF (Linux) binary, not Mach-O: build it with GOOS=darwin")
	case bytes.HasPrefix(head, []byte("MZ")):
		return errors.New("a Windows binary, not Mach-O: build it with GOOS=darwin")
	}
	return fmt.Errorf("not a Mach-O binary: %w", err)
}

// crossBuild builds ./app for darwin/arm64 without cgo into dst. Without
// cgo there is no menu bar (systray needs Cocoa), but the binary and the
// bundle around it are real, which is what a test bundle needs.
func crossBuild(ctx context.Context, root, dst, version string) error {
	args := []string{"build", "-trimpath", "-o", dst}
	// A dev build keeps the app's own "dev-<commit>" version from the
	// build info; a tagged one says the tag like a release does.
	if version != devVersion {
		args = append(args, "-ldflags", "-X main.buildVersion="+version)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./app")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("cross-build ./app for darwin/arm64: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// copyExecutable copies src to dst with mode 0755 whatever the umask.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open binary: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy binary to %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return os.Chmod(dst, 0o755)
}
