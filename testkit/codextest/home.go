package codextest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// KeyEnv is the variable the fake provider reads its API key from; the
// value is never checked, but Codex refuses to start without one.
const KeyEnv = "CODEXTEST_API_KEY"

// ModelFor is the model a test home configures for a release: one whose
// built-in metadata the release knows, so it offers its usual tools (0.169
// offers apply_patch only for models it knows; 0.47 knows gpt-5-codex).
func ModelFor(version string) string {
	if version == Legacy {
		return "gpt-5-codex"
	}
	return "gpt-5.5"
}

// Config is the config.toml a test home starts with: the fake provider as
// default, no update check, no analytics, no project trust prompt for dir.
func Config(baseURL, dir, model string) string {
	return fmt.Sprintf(`# written by codextest
model = %[3]s
model_provider = "fake"
model_reasoning_summary = "auto"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = %[1]s
env_key = %[2]s
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[projects.%[4]s]
trust_level = "trusted"
`, strconv.Quote(baseURL), strconv.Quote(KeyEnv), strconv.Quote(model), strconv.Quote(dir))
}

// PrepareHome creates codexHome and the workspace dir and writes
// config.toml pointing at baseURL with model, unless one exists.
func PrepareHome(codexHome, dir, baseURL, model string) error {
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return fmt.Errorf("create codex home: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	path := filepath.Join(codexHome, "config.toml")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.WriteFile(path, []byte(Config(baseURL, dir, model)), 0o644); err != nil {
		return fmt.Errorf("write config.toml: %w", err)
	}
	return nil
}
