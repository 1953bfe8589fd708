package opencodetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/fakemodel"
)

// Provider and Model name the fake provider and its model in a test
// home's opencode.json ("fake/fake-model").
const (
	Provider = "fake"
	Model    = "fake-model"
)

// Prices are the model's prices in the test home's configuration, in
// dollars per million tokens, as OpenCode's config takes them. A test
// checks OpenCode's own cost arithmetic against them.
var Prices = struct{ Input, Output, CacheRead, CacheWrite float64 }{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}

// Home is a throwaway user for OpenCode: HOME and the XDG folders under
// one temp dir, a git repository to work in, and an opencode.json whose
// only provider is the fake model server.
type Home struct {
	Dir  string // HOME
	Work string // the project folder OpenCode runs in (a git repository)
}

// NewHome makes a home under t.TempDir() pointing at baseURL (a fake
// server's URL, without /v1).
func NewHome(t testing.TB, baseURL string) *Home {
	t.Helper()
	h := &Home{Dir: t.TempDir()}
	// A message the bridge delivered starts `opencode run --session` in a
	// group of its own, which outlives the bridge; with the fake model
	// gone it would retry for hours.
	agenttest.KillLeftoversOf(t, h.Dir)
	h.Work = agenttest.Workspace(h.Dir)
	if err := h.Prepare(baseURL); err != nil {
		t.Fatal(err)
	}
	return h
}

// Prepare writes the configuration and the work folder.
func (h *Home) Prepare(baseURL string) error {
	if err := os.MkdirAll(h.Work, 0o755); err != nil {
		return fmt.Errorf("opencodetest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(h.Work, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		return fmt.Errorf("opencodetest: %w", err)
	}
	git := exec.Command("git", "init", "-q", ".")
	git.Dir = h.Work
	if out, err := git.CombinedOutput(); err != nil {
		return fmt.Errorf("opencodetest: git init: %v: %s", err, out)
	}
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"model":      Provider + "/" + Model,
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{Provider: map[string]any{
			"npm":     "@ai-sdk/openai",
			"name":    "Fake",
			"options": map[string]any{"baseURL": strings.TrimRight(baseURL, "/") + "/v1", "apiKey": "sk-fake"},
			"models": map[string]any{Model: map[string]any{"name": "Fake Model", "cost": map[string]any{
				"input": Prices.Input, "output": Prices.Output, "cache_read": Prices.CacheRead, "cache_write": Prices.CacheWrite}}},
		}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("opencodetest: %w", err)
	}
	dir := filepath.Join(h.Config(), "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("opencodetest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), data, 0o644); err != nil {
		return fmt.Errorf("opencodetest: %w", err)
	}
	return nil
}

// Config is XDG_CONFIG_HOME.
func (h *Home) Config() string { return filepath.Join(h.Dir, ".config") }

// Data is XDG_DATA_HOME.
func (h *Home) Data() string { return filepath.Join(h.Dir, ".local", "share") }

// DB is the database OpenCode writes.
func (h *Home) DB() string { return filepath.Join(h.Data(), "opencode", "opencode.db") }

// Environ is the whole environment OpenCode runs with (agenttest.Environ:
// nothing of the developer's configuration or keys leaks in); no fetch of
// the models.dev catalogue (there is no network), and its embedded npm
// kept offline: every run otherwise installs @opencode-ai/plugin and its
// dependencies into the fresh home's config folder from the registry, in
// the background (a failure is only logged), which costs CPU a suite on a
// busy machine has none of, and reaches the network.
func (h *Home) Environ() []string {
	return agenttest.Environ(h.Dir,
		"XDG_CONFIG_HOME="+h.Config(),
		"XDG_DATA_HOME="+h.Data(),
		"XDG_CACHE_HOME="+filepath.Join(h.Dir, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(h.Dir, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"npm_config_offline=true",
	)
}

// Server starts a fake Responses API for OpenCode: script's turns answer
// the agent's model calls; OpenCode's side call for a session title
// (its "title generator" prompt) is answered apart (an empty body, which
// leaves the title as OpenCode's default), so it never takes a turn.
func Server(t testing.TB, script ...fakemodel.Turn) *fakemodel.Server {
	t.Helper()
	s := fakemodel.New(script...)
	s.Classifier = Classify
	if _, err := s.Start(); err != nil {
		t.Fatalf("opencodetest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Classify is fakemodel.Classify with OpenCode's title call set apart.
func Classify(r fakemodel.Request) fakemodel.Kind {
	if r.Contains("You are a title generator") {
		return fakemodel.KindOther
	}
	return fakemodel.Classify(r)
}
