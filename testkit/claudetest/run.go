package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"conductorbridge/testkit/agenttest"
)

// Options describe one Claude Code invocation.
type Options struct {
	// Bin is the binary, usually from Find.
	Bin string
	// BaseURL is the fake model's URL (ANTHROPIC_BASE_URL).
	BaseURL string
	// Home is the fake $HOME; required. Transcripts land in Home/.claude/projects.
	Home string
	// Dir is the workspace (cwd); default Home/work/demo.
	Dir string
	// Prompt is the -p prompt (ignored by Start, which reads stdin).
	Prompt string
	// AllowedTools defaults to DefaultTools().
	AllowedTools []string
	// SessionID fixes the session id (a random UUID by default) so the
	// transcript path is known before the run; ignored when resuming.
	SessionID string
	// NoSessionArg starts a new session with no session argument at all,
	// as a person typing `claude` does: Claude Code picks the id, and the
	// process's arguments do not say it (SessionID is then ignored).
	NoSessionArg bool
	// Resume continues that session (--resume); Continue the latest (--continue).
	Resume   string
	Continue bool
	// Model is passed as --model when set.
	Model string
	// OutputFormat is "json" (default) or "stream-json" for Run.
	OutputFormat string
	// Args are appended to the command line.
	Args []string
	// Env is appended to (and so overrides) the base environment, KEY=VALUE.
	Env []string
}

// prepare is what every run does first: o with its defaults filled in,
// and its home and workspace prepared (PrepareHome).
func (o Options) prepare() (Options, error) {
	var err error
	if o.Dir, err = agenttest.Workdir("claudetest", o.Bin, o.Home, o.Dir); err != nil {
		return o, err
	}
	if o.AllowedTools == nil {
		o.AllowedTools = DefaultTools()
	}
	if o.OutputFormat == "" {
		o.OutputFormat = "json"
	}
	if o.NoSessionArg {
		o.SessionID = ""
	}
	if o.SessionID == "" && o.Resume == "" && !o.Continue && !o.NoSessionArg {
		id, err := NewSessionID()
		if err != nil {
			return o, err
		}
		o.SessionID = id
	}
	return o, PrepareHome(o.Home, o.Dir)
}

// apiKey is the key Claude Code sends the fake model, which never checks it.
const apiKey = "test"

// Environ is the complete environment Claude Code runs with
// (agenttest.Environ: nothing of the developer's, such as
// CLAUDE_CONFIG_DIR or API keys, leaks in).
func (o Options) Environ() []string {
	env := agenttest.Environ(o.Home,
		"ANTHROPIC_BASE_URL="+o.BaseURL,
		"ANTHROPIC_API_KEY="+apiKey,
		"DISABLE_AUTOUPDATER=1",
		// Turns off telemetry, error reporting, the update check and, on
		// 2.0.x, the count_tokens/quota side calls: faster and quieter.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	)
	return append(env, o.Env...)
}

func (o Options) commonArgs() []string {
	args := []string{"--allowedTools", strings.Join(o.AllowedTools, ",")}
	switch {
	case o.Resume != "":
		args = append(args, "--resume", o.Resume)
	case o.Continue:
		args = append(args, "--continue")
	case o.NoSessionArg:
	default:
		args = append(args, "--session-id", o.SessionID)
	}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	return args
}

func (o Options) command(ctx context.Context, args []string) *exec.Cmd {
	return agenttest.Command(ctx, o.Bin, o.Dir, o.Environ(), append(args, o.Args...))
}

// ResultMessage is Claude Code's final "result" JSON object.
type ResultMessage struct {
	Type         string  `json:"type"`
	Subtype      string  `json:"subtype"`
	IsError      bool    `json:"is_error"`
	Result       string  `json:"result"`
	SessionID    string  `json:"session_id"`
	NumTurns     int     `json:"num_turns"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	DurationMS   int64   `json:"duration_ms"`
	StopReason   string  `json:"stop_reason"`
}

// Result is the outcome of Run.
type Result struct {
	SessionID      string
	TranscriptPath string
	Output         ResultMessage
	Stdout, Stderr []byte
	Duration       time.Duration
}

// Run runs `claude -p <prompt>` to completion. A non-zero exit is an
// error, but the Result (with stderr) is returned alongside it.
func Run(ctx context.Context, opts Options) (*Result, error) {
	o, err := opts.prepare()
	if err != nil {
		return nil, err
	}
	args := []string{"-p", o.Prompt, "--output-format", o.OutputFormat}
	if o.OutputFormat == "stream-json" {
		args = append(args, "--verbose") // required with -p
	}
	cmd := o.command(ctx, append(args, o.commonArgs()...))
	start := time.Now()
	stdout, stderr, runErr := agenttest.Output(cmd)
	res := &Result{Stdout: stdout, Stderr: stderr, Duration: time.Since(start), SessionID: o.SessionID}
	if msg, ok := lastResult(stdout); ok {
		res.Output = msg
		if msg.SessionID != "" {
			res.SessionID = msg.SessionID
		}
	}
	if res.SessionID != "" {
		if res.TranscriptPath, err = TranscriptPath(o.Home, o.Dir, res.SessionID); err != nil {
			return res, err
		}
	}
	if runErr != nil {
		return res, fmt.Errorf("claude -p: %w", runErr)
	}
	return res, nil
}

// lastResult finds the final result object in json (one object) or
// stream-json (one per line) output.
func lastResult(out []byte) (ResultMessage, bool) {
	var found ResultMessage
	ok := false
	for _, line := range bytes.Split(out, []byte("\n")) {
		var m ResultMessage
		if json.Unmarshal(bytes.TrimSpace(line), &m) == nil && m.Type == "result" {
			found, ok = m, true
		}
	}
	if !ok {
		var m ResultMessage
		if json.Unmarshal(out, &m) == nil && m.Type == "result" {
			return m, true
		}
	}
	return found, ok
}
