package cursortest

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/testkit/agenttest"
)

//go:embed runner.mjs
var runner []byte

// Home is a throwaway home for SDK runs: its workspace, and the store
// folder Conductor would give that workspace.
type Home struct {
	Dir  string
	Work string
	// StateRoot is where the SDK's store goes, laid out as Conductor's:
	// com.conductor.app/cursor-sdk-store/<StoreKey(Work)>.
	StateRoot string
}

// NewHome makes a home under t.TempDir.
func NewHome(t testing.TB) Home {
	t.Helper()
	h, err := MakeHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// MakeHome lays a home out in dir.
func MakeHome(dir string) (Home, error) {
	work := agenttest.Workspace(dir)
	h := Home{
		Dir:       dir,
		Work:      work,
		StateRoot: filepath.Join(dir, "Library", "Application Support", "com.conductor.app", "cursor-sdk-store", StoreKey(work)),
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return Home{}, fmt.Errorf("cursortest home: %w", err)
	}
	return h, nil
}

// StoreKey names a workspace's store folder under Conductor's
// cursor-sdk-store: the first 16 hex digits of the SHA-256 of its path.
func StoreKey(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return hex.EncodeToString(sum[:])[:16]
}

// IndexDB is the path of the store's index database.
func (h Home) IndexDB() string { return filepath.Join(h.StateRoot, "index.db") }

// Job is what one Run does: for each agent, its prompts, one run each.
type Job struct {
	// Backend is the fake backend's URL (fakemodel.Server.URL).
	Backend string
	// Model is the model asked for (default "auto", the one the fake lists).
	Model  string
	Agents [][]string
}

// Result is what the runner reports: each agent's id and runs.
type Result struct {
	Agents []struct {
		AgentID string `json:"agentId"`
		Runs    []struct {
			RunID  string `json:"runId"`
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"runs"`
	} `json:"agents"`
}

// Run runs job's agents in one Node process, the SDK talking to
// job.Backend from home h, and returns what the runner reported.
func Run(ctx context.Context, tools Tools, h Home, job Job) (Result, error) {
	script := filepath.Join(h.Dir, "cursortest-runner.mjs")
	if err := os.WriteFile(script, runner, 0o644); err != nil {
		return Result{}, fmt.Errorf("cursortest: %w", err)
	}
	model := job.Model
	if model == "" {
		model = "auto"
	}
	var agents []map[string]any
	for _, prompts := range job.Agents {
		agents = append(agents, map[string]any{"prompts": prompts})
	}
	spec, err := json.Marshal(map[string]any{
		"sdk": tools.SDK, "apiKey": "fake_cursor_key", "model": model,
		"cwd": h.Work, "stateRoot": h.StateRoot, "agents": agents,
	})
	if err != nil {
		return Result{}, fmt.Errorf("cursortest job: %w", err)
	}
	env := agenttest.Environ(h.Dir, "CURSOR_BACKEND_URL="+job.Backend)
	cmd := agenttest.Command(ctx, tools.Node, h.Work, env, []string{script, string(spec)})
	stdout, _, err := agenttest.Output(cmd)
	if err != nil {
		return Result{}, fmt.Errorf("cursortest runner: %w", err)
	}
	lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
	var res Result
	if err := json.Unmarshal(lines[len(lines)-1], &res); err != nil {
		return Result{}, fmt.Errorf("cursortest runner's report %q: %w", agenttest.Tail(stdout, 2000), err)
	}
	return res, nil
}
