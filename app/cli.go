package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"conductorbridge/bridge/api"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// workspaces prints the running bridge's workspaces as a table, or, when
// no bridge answers, what a direct scan finds.
func workspaces(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("workspaces", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	list, err := listWorkspaces(ctx, c.client(), c.token())
	if err != nil {
		if !couldScan(err) {
			return err // a bridge runs, but not this state folder's: name it, never a scan of nothing
		}
		fmt.Fprintf(stderr, "%v; scanning directly\n", err)
		if list, err = scanDirect(ctx, c); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"workspaces": list})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tREPO\tNAME\tBRANCH\tSTATUS\tPID\tDIRECTORY")
	for _, w := range list {
		st := w.Status
		if st == "" {
			st = "-"
		}
		if !w.Active {
			st += " (inactive)"
		}
		if w.Browser {
			st += " + browser"
		}
		pid := "-"
		if w.PID != 0 {
			pid = strconv.Itoa(w.PID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", field(w.ID), field(dash(w.Repo)), field(w.Name), field(dash(w.Branch)),
			field(st), pid, field(w.Directory))
		if len(w.Sessions) < 2 {
			continue
		}
		// Several sessions (Conductor tabs, claude runs): a line each,
		// addressed as <workspace>/<session> by tail and send.
		for _, s := range w.Sessions {
			st, pid := s.Status, "-"
			if s.Reason != "" {
				st += " (" + s.Reason + ")"
			}
			if s.Active {
				st += " *"
			}
			if s.PID != 0 {
				pid = strconv.Itoa(s.PID)
			}
			fmt.Fprintf(tw, "  /%s\t%s\t%s\t\t%s\t%s\t\n", field(s.SessionID), field(dash(s.Agent)), field(sessionLabel(s)), field(st), pid)
		}
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func scanDirect(ctx context.Context, c config) ([]apiWorkspace, error) {
	reg := discover.NewRegistry(filepath.Join(c.StateDir, "registered.json"))
	_ = reg.Load() // a broken registry file only hides registrations here
	drivers := c.agents
	s := &discover.Scanner{ConductorDB: c.ConductorDB, ConductorRoot: c.ConductorRoot,
		Agents: listAs[discover.Agent](drivers), Registry: reg}
	defer s.Close()
	found, err := newAgentScanner(s, drivers).Scan(ctx)
	if err != nil && found == nil {
		return nil, err
	}
	var out []apiWorkspace
	for _, w := range found {
		if w.Archived {
			continue
		}
		out = append(out, apiWorkspace{WorkspaceHead: api.WorkspaceHead{ID: w.ID, Name: w.Name, Branch: w.Branch,
			Directory: w.Directory, PID: w.PID, Active: w.PID != 0, Repo: w.Repo, Status: w.ConductorStatus,
			Source: w.Source}})
	}
	return out, nil
}

// tail follows one workspace's stream in the terminal, reconnecting with
// its last event id whenever the connection drops.
func tail(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	last := fs.Int64("n", 20, "show this many past events first")
	raw := fs.Bool("json", false, "print each event as a JSON line")
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: conductor-bridge tail [flags] <workspace id, name or directory>[/<session>]")
	}
	if err := c.resolve(); err != nil {
		return err
	}
	cl, ws, sess, err := findTarget(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	after, session := max(ws.LastEventID-*last, 0), ""
	if sess != nil {
		after, session = max(sess.LastEventID-*last, 0), sess.SessionID
		fmt.Fprintf(stderr, "following %s / %s (%s) — Ctrl-C to stop\n", field(ws.Name), field(sessionLabel(*sess)), field(sess.SessionID))
	} else {
		fmt.Fprintf(stderr, "following %s (%s) — Ctrl-C to stop\n", field(ws.Name), field(ws.ID))
	}
	for {
		// The token is read again on each connect: it may have been rotated.
		err := followOnce(ctx, cl, c.token(), ws.ID, session, &after, func(m stream.Message) {
			if *raw {
				fmt.Fprintf(stdout, "%s\n", m.Data)
				return
			}
			var e event.Event
			if json.Unmarshal(m.Data, &e) == nil {
				fmt.Fprintln(stdout, formatEvent(e))
			}
		})
		if ctx.Err() != nil {
			return nil
		}
		fmt.Fprintf(stderr, "stream interrupted (%v); reconnecting…\n", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// reorder moves flags before positional arguments so `tail ws -n 5` works.
// A flag takes the next word as its value unless it is a boolean flag.
func reorder(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, pos...)
}

// followOnce reads the stream (narrowed to session, when set) until it
// ends, advancing *after.
func followOnce(ctx context.Context, cl *bridgeClient, token, id, session string, after *int64, fn func(stream.Message)) error {
	u := cl.url(streamPath(id, *after))
	if session != "" {
		u += sep(u) + "session=" + url.QueryEscape(session)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if *after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(*after, 10))
	}
	resp, err := cl.http(0).Do(req)
	if err != nil {
		return cl.noBridge(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("stream: %s", resp.Status)
	}
	err = stream.Read(resp.Body, func(m stream.Message) error {
		if m.Event != event.Gap && m.ID > *after {
			*after = m.ID
		}
		fn(m)
		return nil
	})
	if err == nil {
		err = io.EOF
	}
	return err
}

// pickWorkspace finds a workspace by id, name or directory.
func pickWorkspace(list []apiWorkspace, q string) (apiWorkspace, error) {
	abs, _ := filepath.Abs(q)
	var byName []apiWorkspace
	for _, w := range list {
		if w.ID == q || w.Directory == q || w.Directory == abs {
			return w, nil
		}
		if w.Name == q || w.Repo+"/"+w.Name == q {
			byName = append(byName, w)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return apiWorkspace{}, fmt.Errorf("no workspace %q (see: conductor-bridge workspaces)", q)
	default:
		return apiWorkspace{}, fmt.Errorf("%q names %d workspaces; use an id", q, len(byName))
	}
}

// formatEvent renders one event as a terminal line: every field from the
// record on it (field), text folded to one line.
func formatEvent(e event.Event) string {
	ts := e.TS.Local().Format("15:04:05")
	oneLine := func(s string, trunc bool) string {
		s = strings.Join(strings.Fields(s), " ")
		if trunc {
			s += " …"
		}
		return s
	}
	side := ""
	if e.Sidechain {
		side = "  (subagent)"
	}
	switch e.Type {
	case event.User:
		return fmt.Sprintf("%s  you      %s%s", ts, oneLine(e.Content, e.Truncated), side)
	case event.Assistant:
		return fmt.Sprintf("%s  claude   %s%s", ts, oneLine(e.Content, e.Truncated), side)
	case event.Thinking:
		return fmt.Sprintf("%s  thinks   %s%s", ts, oneLine(e.Content, e.Truncated), side)
	case event.ToolUse:
		return fmt.Sprintf("%s  ▶ %-6s %s%s", ts, field(e.Name), oneLine(e.Input, e.TruncIn), side)
	case event.ToolResult:
		mark := "◀"
		if e.IsError {
			mark = "✗"
		}
		return fmt.Sprintf("%s  %s %-6s %s%s", ts, mark, field(e.Name), oneLine(e.Output, e.TruncOut), side)
	case event.TurnComplete:
		return fmt.Sprintf("%s  ✓ turn   %d in · %d out · %d cache write · %d cache read · $%.4f · %.1fs · %s",
			ts, e.Usage.InputTokens, e.Usage.OutputTokens, e.Usage.CacheCreationTokens, e.Usage.CacheReadTokens,
			e.CostUSD, float64(e.DurationMS)/1000, field(e.Model))
	case event.Status:
		return fmt.Sprintf("%s  status   %s %s", ts, field(e.State), field(e.Reason))
	case event.Session:
		return fmt.Sprintf("%s  session  %s", ts, field(e.SessionID))
	case event.Gap:
		return fmt.Sprintf("         gap      events %d–%d are no longer kept", e.GapFrom, e.AvailableFrom-1)
	case event.Browse:
		return fmt.Sprintf("%s  🌐 %s", ts, browseLine(e, oneLine))
	}
	return fmt.Sprintf("%s  %s", ts, field(e.Type))
}

// browseLine is a browser action in a few words: "goto https://… → ok
// (412 ms)", "click @e3 ✗ element not found", "navigated to …".
func browseLine(e event.Event, oneLine func(string, bool) string) string {
	cmd := strings.TrimSpace(e.Command + " " + oneLine(e.Args, false))
	switch e.Action {
	case event.BrowseStart:
		return cmd + " …"
	case event.BrowseEnd:
		if !e.OK {
			return fmt.Sprintf("%s ✗ %s (%d ms)", cmd, oneLine(e.Error, false), e.DurationMS)
		}
		return fmt.Sprintf("%s → ok (%d ms)", cmd, e.DurationMS)
	case event.BrowseNavigation:
		return "navigated to " + oneLine(e.URL, false)
	case event.BrowseError:
		return fmt.Sprintf("%s ✗ %s", cmd, oneLine(e.Error, false))
	case event.BrowseGap:
		return fmt.Sprintf("browser actions %d–%d not shown", e.GapFrom, e.AvailableFrom-1)
	}
	return e.Action
}

func sep(u string) string {
	if strings.Contains(u, "?") {
		return "&"
	}
	return "?"
}
