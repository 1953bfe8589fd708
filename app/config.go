package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/paths"
)

// DefaultAddr is where the bridge listens: loopback only, next to gstack's
// browse server on 34567.
const DefaultAddr = "127.0.0.1:34568"

// config is what every command needs: where things are and where the
// bridge listens. Each default derives from $HOME; a flag overrides each.
type config struct {
	paths.Roots
	Addr     string
	LogLevel string
	Origins  originList // serve only: extension origins allowed in
	// NotifyWindow (serve only) is how long after a notification the next
	// ones fold into one summary (tray.Config.Coalesce).
	NotifyWindow time.Duration
	// agents are the agents whose records the bridge reads (agentList),
	// each set up by its flags (register) and the roots (resolve).
	agents []agent.Agent
}

// originList is a repeatable flag of extension origins.
type originList []string

func (o *originList) String() string { return strings.Join(*o, ",") }

func (o *originList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimRight(strings.TrimSpace(s), "/")
		if !strings.HasPrefix(s, "chrome-extension://") || len(s) == len("chrome-extension://") {
			return fmt.Errorf("%q is not an extension origin (chrome-extension://<id>)", s)
		}
		*o = append(*o, s)
	}
	return nil
}

// register adds the shared flags to fs, each agent's own among them
// (agent.Configured); call resolve after fs.Parse.
func (c *config) register(fs *flag.FlagSet) {
	if c.agents == nil {
		c.agents = agentList()
	}
	for _, a := range listAs[agent.Configured](c.agents) {
		a.Flags(fs)
	}
	fs.StringVar(&c.Addr, "addr", DefaultAddr, "where serve listens for browsers (loopback only); the other commands reach the bridge by its socket in the state folder, and ask this port only to name a bridge of another folder")
	fs.StringVar(&c.Home, "home", "", "home directory (default $HOME)")
	fs.StringVar(&c.ClaudeProjects, "claude-projects", "", "Claude Code transcripts (default ~/.claude/projects or $CLAUDE_CONFIG_DIR/projects)")
	fs.StringVar(&c.CodexHome, "codex-home", "", "Codex's home: rollouts and config.toml (default $CODEX_HOME or ~/.codex)")
	fs.StringVar(&c.ConductorDB, "conductor-db", "", "Conductor's database")
	fs.StringVar(&c.ConductorRoot, "conductor-root", "", "Conductor's folder (default ~/conductor)")
	fs.StringVar(&c.StateDir, "state-dir", "", "the bridge's own state, where the CLI finds it (default $"+stateDirEnv+", else per --home)")
	fs.StringVar(&c.LogDir, "log-dir", "", "log directory")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error")
}

// resolve fills every path left empty from the home directory, and sets up
// the agents from the flags and those paths.
func (c *config) resolve() error {
	home := c.Home
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return fmt.Errorf("find home directory: %w", err)
		}
	}
	def, err := paths.Default(home, runtime.GOOS, os.Getenv)
	if err != nil {
		return err
	}
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	c.Home = home
	if d := os.Getenv(stateDirEnv); d != "" && c.StateDir == "" {
		// The one place every command's state folder comes from when
		// --state-dir is not given: a demo prints it.
		if c.StateDir, err = filepath.Abs(d); err != nil {
			return fmt.Errorf("%s: %w", stateDirEnv, err)
		}
	}
	set(&c.ClaudeProjects, def.ClaudeProjects)
	set(&c.ClaudeSettings, def.ClaudeSettings)
	set(&c.CodexHome, def.CodexHome)
	set(&c.ConductorDB, def.ConductorDB)
	set(&c.ConductorRoot, def.ConductorRoot)
	set(&c.StateDir, def.StateDir)
	set(&c.LogDir, def.LogDir)
	if c.agents == nil {
		c.agents = agentList()
	}
	for _, a := range listAs[agent.Configured](c.agents) {
		a.Resolve(c.Roots, os.Getenv)
	}
	return checkLoopback(c.Addr)
}

// checkLoopback refuses to listen anywhere a neighbour could reach.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad --addr %q: %w", addr, err)
	}
	// Exactly the hosts the API's Host check accepts, so hooks and the
	// CLI, which call the address the bridge listens on, get through.
	if host != "127.0.0.1" && host != "localhost" {
		return fmt.Errorf("bad --addr %q: the bridge listens on 127.0.0.1 only", addr)
	}
	return nil
}

// baseURL is the bridge's URL for clients of the running bridge.
func (c *config) baseURL() string { return "http://" + c.Addr }

// token reads the API token from the state dir; "" when there is none yet
// (the bridge then answers 401 and says how to get one).
func (c *config) token() string {
	t, _ := auth.Read(filepath.Join(c.StateDir, tokenFile))
	return t
}
