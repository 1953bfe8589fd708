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
	}
	if len(args) > 0 && cmd == "serve" {
		switch args[0] { // the usual ways to ask what the commands are
		case "-h", "-help", "--help", "-version", "--version":
			cmd, args = args[0], args[1:]
		}
	}
	if strings.HasPrefix(cmd, "chrome-extension://") {
		// Chrome starts the native host with the caller's origin as its
		// only argument: the manifest's path cannot name a command.
		cmd, args = "native-host", append([]string{cmd}, args...)
	}
	switch cmd {
	case "native-host":
		// The framing is binary: stdout unfiltered.
		return nativeHost(ctx, args, os.Stdin, rawStdout, rawStderr)
	case "extension":
		return extensionCmd(args, stdout, stderr)
	case "serve":
		return serve(ctx, args, stderr)
	case "workspaces", "ls":
		return workspaces(ctx, args, stdout, stderr)
	case "tail":
		return tail(ctx, args, stdout, stderr)
	case "send":
		return send(ctx, args, stdout, stderr)
	case "hooks":
		return hooksCmd(ctx, args, stdout, stderr)
	case "register":
		return register(ctx, args, stdout, stderr)
	case "unregister":
		return unregister(ctx, args, stdout, stderr)
	case "token":
		return token(ctx, args, stdout, stderr)
	case "pair", "unpair":
		return pairCmd(ctx, cmd, args, stdout, stderr)
	case "expose":
		return expose(ctx, args, stdout, stderr)
	case "open":
		return openViewer(ctx, args, stdout, stderr)
	case "service":
		return serviceCmd(args, stdout, stderr)
	case "doctor":
		return doctor(ctx, args, stdout, stderr)
	case "notifications-state": // doctor's question to the app bundle (notifications.go)
		return notificationsStateCmd(stdout)
	case "demo":
		return demoCmd(ctx, args, stdout, stderr)
	case "bench":
		return bench(ctx, args, stdout, stderr)
	case "usage":
		return usageCmd(ctx, args, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "conductor-bridge", version())
		return nil
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return nil
	default:
		usage(stderr)
		return fmt.Errorf("unknown command %q", cmd)
	}
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
  open [--print] [<ws>]    open the session viewer (a one-time link; pairs <ws>)
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
        [--no-cache]       what every turn cost, from the transcripts (Claude, Codex); what each
                           file gave is kept in usage.cache in the state dir (--no-cache: read all)
  bench        measure idle cost, stream latency, fan-out, cold start, memory and descriptors
  version      print the version

Every command but serve reaches the bridge through its socket file in the state
dir (--state-dir), never its port: --addr is where serve listens.

Run 'conductor-bridge <command> -h' for a command's flags.
`)
}
