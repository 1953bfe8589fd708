package codextest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"conductorbridge/testkit/agenttest"
)

// Options describe one `codex exec` invocation.
type Options struct {
	// Bin is the binary, usually from Find.
	Bin string
	// BaseURL is the fake model's URL, written into config.toml.
	BaseURL string
	// Home is the fake $HOME; required. CODEX_HOME is Home/.codex.
	Home string
	// Dir is the workspace (cwd); default Home/work/demo.
	Dir string
	// Prompt is the prompt; "" reads none.
	Prompt string
	// Resume continues that thread (`codex exec resume <id> <prompt>`).
	Resume string
	// Args are inserted after `exec` (and `resume <id>`), before the prompt.
	Args []string
	// Env is appended to (and so overrides) the base environment.
	Env []string
	// Model is written into a new config.toml (default ModelFor(Latest)).
	Model string
}

// prepare is what every run does first: o with its defaults filled in,
// and its CODEX_HOME and workspace prepared (PrepareHome).
func (o Options) prepare() (Options, error) {
	var err error
	if o.Dir, err = agenttest.Workdir("codextest", o.Bin, o.Home, o.Dir); err != nil {
		return o, err
	}
	if o.Model == "" {
		o.Model = ModelFor(Latest)
	}
	return o, PrepareHome(o.CodexHome(), o.Dir, o.BaseURL, o.Model)
}

// CodexHome is the CODEX_HOME of the run.
func (o Options) CodexHome() string { return filepath.Join(o.Home, ".codex") }

// Environ is the complete environment Codex runs with (agenttest.Environ:
// nothing of the developer's, such as CODEX_HOME or OPENAI_API_KEY, leaks
// in).
func (o Options) Environ() []string {
	env := agenttest.Environ(o.Home, "CODEX_HOME="+o.CodexHome(), KeyEnv+"=test-key", "NO_COLOR=1")
	return append(env, o.Env...)
}

// Argv is the command line after the binary. The sandbox is bypassed
// because the tests run as root in containers where Codex's Landlock or
// bubblewrap sandbox is unavailable, and approvals would block a
// non-interactive run; the dir need not be a git repository.
func (o Options) Argv() []string {
	// Options go before `resume`: 0.47 accepts exec's flags only there.
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}
	if o.Resume == "" {
		args = append(args, "-C", o.Dir)
	}
	args = append(args, o.Args...)
	if o.Resume != "" {
		args = append(args, "resume", o.Resume)
	}
	if o.Prompt != "" {
		args = append(args, o.Prompt)
	}
	return args
}

// Result is what a finished run printed.
type Result struct {
	Stdout, Stderr []byte
}

// Command builds the command for o without starting it: stdin is empty
// so Codex never waits on a terminal.
func Command(ctx context.Context, o Options) (*exec.Cmd, error) {
	o, err := o.prepare()
	if err != nil {
		return nil, err
	}
	cmd := agenttest.Command(ctx, o.Bin, o.Dir, o.Environ(), o.Argv())
	cmd.Stdin = bytes.NewReader(nil)
	return cmd, nil
}

// Run runs `codex exec` to completion.
func Run(ctx context.Context, o Options) (Result, error) {
	cmd, err := Command(ctx, o)
	if err != nil {
		return Result{}, err
	}
	var res Result
	res.Stdout, res.Stderr, err = agenttest.Output(cmd)
	if err != nil {
		return res, fmt.Errorf("codex %v: %w", o.Argv(), err)
	}
	return res, nil
}
