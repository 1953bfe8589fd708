package discover

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// lsofTimeout bounds one lsof run: the scan runs every two seconds and must
// not pile up behind a slow lsof (it can stall on a hung network mount).
const lsofTimeout = 2 * time.Second

// lsofClaudeCwds lists the working directories of processes whose command
// name starts with "claude" by running lsof, which macOS has and which
// needs no cgo. It is compiled everywhere so it can be tested on Linux.
func lsofClaudeCwds(ctx context.Context, lsof string) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(ctx, lsofTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lsof, "-w", "-a", "-c", "claude", "-d", "cwd", "-Fpfn")
	cmd.WaitDelay = 500 * time.Millisecond
	out, err := cmd.Output()
	if err != nil {
		// lsof exits 1 when nothing matched (and when some process
		// could not be read): what it printed is still good.
		var ee *exec.ExitError
		if ctx.Err() != nil || !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return nil, fmt.Errorf("list claude processes: lsof: %w", err)
		}
	}
	return resolveProcCwds(parseLsofCwds(out)), nil
}

// parseLsofCwds reads lsof -F output: a "p<pid>" line starts a process,
// "f<fd>" a file, and "n<name>" is the file's path.
func parseLsofCwds(out []byte) map[string]int {
	m := make(map[string]int)
	pid, fd := 0, ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		switch v := line[1:]; line[0] {
		case 'p':
			pid, fd = 0, ""
			if n, err := strconv.Atoi(v); err == nil {
				pid = n
			}
		case 'f':
			fd = v
		case 'n':
			if fd == "" || fd == "cwd" {
				addProc(m, v, pid)
			}
		}
	}
	return m
}
