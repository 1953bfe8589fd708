// Command conductor-bridge is the Conductor Bridge: it finds every Claude
// Code and Codex agent workspace on this machine and serves each live
// session on loopback for the Chrome side panel and any other client.
//
//	conductor-bridge                 run the bridge, with its menu-bar icon
//	conductor-bridge serve [flags]   run the bridge
//	conductor-bridge workspaces      list workspaces
//	conductor-bridge tail <ws>       follow a workspace's sessions in the terminal
//	conductor-bridge send <ws> <msg> inject a message into the agent
//	conductor-bridge hooks install   install the hooks that deliver messages
//	conductor-bridge register <dir>  adopt a git worktree as a workspace
//	conductor-bridge extension install  the Chrome side panel and its native host
//	conductor-bridge bench           measure idle cost, latency, fan-out, cold start, memory
//	conductor-bridge version         print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one kills at once (the default),
	// whatever the shutdown is waiting for.
	go func() { <-ctx.Done(); stop() }()
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		hookMain(ctx, os.Args[2:]) // Claude Code reads its exit code
	}
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(newVisible(os.Stderr), "conductor-bridge:", err)
		os.Exit(1)
	}
}

// run dispatches a command line; main's only job is signals and exit codes.
// Whatever a command prints shows control characters visibly (visible.go):
// part of it comes from transcripts, which must not drive the terminal.
func run(ctx context.Context, args []string, rawStdout, rawStderr io.Writer) error {
	stdout, stderr := newVisible(rawStdout), newVisible(rawStderr)
	defer stdout.Flush()
	defer stderr.Flush()
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 {
		switch args[0] { // the usual ways to ask what the commands are ("serve -h" asks for serve's flags)
		case "-h", "-help", "--help", "-version", "--version":
			cmd, args = args[0], args[1:]
		}
	}
	if strings.HasPrefix(cmd, "chrome-extension://") {
		// Chrome starts the native host with the caller's origin as its
		// only argument: the manifest's path cannot name a command.
		cmd, args = "native-host", append([]string{cmd}, args...)
	}
	if c, ok := plainCommands()[cmd]; ok {
		return c(ctx, args, stdout, stderr)
	}
	switch cmd {
	case "native-host":
		// The framing is binary: stdout unfiltered.
		return nativeHost(ctx, args, os.Stdin, rawStdout, rawStderr)
	case "extension":
		return extensionCmd(args, stdout, stderr)
	case "serve":
		return serve(ctx, args, stderr)
	case "pair", "unpair":
		return pairCmd(ctx, cmd, args, stdout, stderr)
	case "service":
		return serviceCmd(args, stdout, stderr)
	case "notifications-state": // doctor's question to the app bundle (notifications.go)
		return notificationsStateCmd(stdout)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "conductor-bridge", version())
		return nil
	case "help", "-h", "-help", "--help":
		if len(args) > 0 && cmd == "help" {
			return helpCmd(ctx, args[0], stdout)
		}
		usage(stdout)
		return nil
	default:
		return unknownCommand(cmd)
	}
}

// commandFunc is a command that takes its arguments and writes to
// stdout and stderr, both filtered (visible.go).
type commandFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// plainCommands are run's commands of that shape, by name; the others
// take something else and have their own case.
func plainCommands() map[string]commandFunc {
	return map[string]commandFunc{
		"workspaces": workspaces,
		"ls":         workspaces,
		"tail":       tail,
		"send":       send,
		"hooks":      hooksCmd,
		"register":   register,
		"unregister": unregister,
		"token":      token,
		"expose":     expose,
		"open":       openViewer,
		"doctor":     doctor,
		"demo":       demoCmd,
		"bench":      bench,
		"usage":      usageCmd,
	}
}

// commands are the command names a person types (run's cases and
// plainCommands), for help and for a suggestion when one is mistyped.
var commands = []string{"demo", "serve", "workspaces", "ls", "tail", "send", "hooks", "register", "unregister", "pair", "unpair",
	"expose", "open", "extension", "native-host", "token", "service", "doctor", "usage", "bench", "version", "help"}

// unknownCommand says so in one line, with the nearest command's name.
func unknownCommand(cmd string) error {
	best, dist := "", 3 // farther than 2 edits is no suggestion
	for _, c := range commands {
		if d := editDistance(cmd, c); d < dist || (strings.HasPrefix(c, cmd) && len(cmd) >= 2 && best == "") {
			best, dist = c, min(d, dist)
		}
	}
	if best != "" {
		return fmt.Errorf("unknown command %q; did you mean %q? (conductor-bridge help lists every command)", cmd, best)
	}
	return fmt.Errorf("unknown command %q (conductor-bridge help lists every command)", cmd)
}

// editDistance is the Levenshtein distance between two short words.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// helpCmd is `help <command>`: the command's lines of the usage, then its
// flags.
func helpCmd(ctx context.Context, cmd string, stdout io.Writer) error {
	if cmd == "ls" {
		cmd = "workspaces"
	}
	if !slices.Contains(commands, cmd) {
		return unknownCommand(cmd)
	}
	var all strings.Builder
	usage(&all)
	in := false
	for _, line := range strings.Split(all.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "  "+cmd+" ") || line == "  "+cmd:
			in = true
		case in && !strings.HasPrefix(line, "    "):
			in = false
		}
		if in {
			fmt.Fprintln(stdout, line)
		}
	}
	flagsOf := map[string][]string{"hooks": {"status", "-h"}, "extension": {"install", "-h"}}
	switch cmd {
	case "service", "native-host", "version", "help":
		return nil // no flags
	}
	args, ok := flagsOf[cmd]
	if !ok {
		args = []string{"-h"}
	}
	fmt.Fprintln(stdout, "\nflags:")
	if err := run(ctx, append([]string{cmd}, args...), stdout, stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: conductor-bridge [command] [flags]

commands:
  demo         the whole product alive on a throwaway home: --speed 2 --seed 7 --port 34568
  serve        run the bridge with its menu-bar icon (the default): --headless --addr 127.0.0.1:34568
  workspaces   list workspaces (from the running bridge, else a direct scan)
  tail <ws>[/<session>]    follow a workspace's live sessions in the terminal, or one of them
                           (<ws>: id, name or directory; <session>: its id, an id prefix or tab title)
  send <ws>[/<session>] <message>
                           queue a message for the agent (default: Conductor's tab on screen;
                           --wait: until the agent has it)
  hooks install|uninstall|status [<ws>|--all] [--user] [--codex]
                           manage the hooks that deliver messages (--codex: in Codex's config.toml)
  register <dir> | register --repo <repo>
                           adopt a git worktree (or create a detached one)
  unregister <ws>          let a registered workspace go
  pair <ws> | unpair <ws>  pair a workspace with Chrome (browsers see paired ones only)
  expose [paired|all]      which workspaces browsers may see
  open [--print] [--usage | <ws>]
                           open the session viewer (a one-time link; pairs <ws>), or the usage page
  extension install|uninstall [--allow-origin chrome-extension://<id>]
                           the Chrome side panel: writes the unpacked extension and the native
                           messaging host manifest for Chrome, Chromium, Brave, Edge and Arc
  native-host <origin>     the Chrome native messaging host (Chrome starts it; not for a terminal)
  token [--rotate]         print the API token (--rotate: replace it, cut off the old)
  service install|uninstall|start|stop|status
                           the login item (LaunchAgent on macOS, systemd --user units on Linux);
                           it also holds the bridge's port while the bridge is not running
  doctor [--json] [--fix]  check the setup and say how to fix what is wrong (--fix: point hooks and
                           the login item at this binary when theirs is gone, reinstall an old login item)
  usage [--by day|week|month|session|workspace|model|block] [--since D] [--until D] [--tz Z] [--json]
        [--no-cache]       what every turn cost, from the transcripts (Claude, Codex): the running
                           bridge's report, else the files read here, what each gave kept in
                           usage.cache in the state dir (--no-cache: read all)
  bench        measure idle cost, stream latency, fan-out, cold start, memory and descriptors
  version      print the version
  help [<command>]         this list, or a command's lines of it and its flags

Every command but serve reaches the bridge through its socket file in the state
folder: --state-dir, else $CONDUCTOR_BRIDGE_STATE_DIR (a demo prints it), else the
home's. --addr is where serve listens; a command whose folder has no bridge asks
that port whether one of another folder runs, and says which folder to pass.

Run 'conductor-bridge help <command>' for a command's flags.
`)
}
