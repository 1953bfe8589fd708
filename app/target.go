package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
)

// findTarget asks the running bridge for its workspaces and picks what
// q names in them (pickTarget), for the commands that act on one.
func findTarget(ctx context.Context, c config, q string) (*bridgeClient, apiWorkspace, *apiSession, error) {
	cl := c.client()
	list, err := listWorkspaces(ctx, cl, c.token())
	if err != nil {
		return cl, apiWorkspace{}, nil, err
	}
	ws, sess, err := pickTarget(list, q)
	return cl, ws, sess, err
}

// pickTarget finds what `<workspace>[/<session>]` names: a workspace (by
// id, directory, name or repo/name), and optionally one of its sessions
// (by its session id or a prefix of at least 4 characters, Conductor's tab
// id, or its title). A directory or "repo/name" is tried whole first, so
// a slash in them is never taken for a session.
func pickTarget(list []apiWorkspace, q string) (apiWorkspace, *apiSession, error) {
	ws, err := pickWorkspace(list, q)
	if err == nil {
		return ws, nil, nil
	}
	i := strings.LastIndex(q, "/")
	if i <= 0 || i == len(q)-1 {
		return apiWorkspace{}, nil, err
	}
	ws, werr := pickWorkspace(list, q[:i])
	if werr != nil {
		return apiWorkspace{}, nil, err
	}
	s, serr := pickSession(ws, q[i+1:])
	if serr != nil {
		return apiWorkspace{}, nil, serr
	}
	return ws, s, nil
}

func pickSession(ws apiWorkspace, q string) (*apiSession, error) {
	var found []int
	for i, s := range ws.Sessions {
		if s.SessionID == q || s.ConductorSessionID == q {
			return &ws.Sessions[i], nil
		}
		if (len(q) >= 4 && strings.HasPrefix(s.SessionID, q)) || (s.Title != "" && strings.EqualFold(s.Title, q)) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 1:
		return &ws.Sessions[found[0]], nil
	case 0:
		return nil, fmt.Errorf("workspace %s has no session %q (see: conductor-bridge workspaces)", ws.Name, q)
	default:
		return nil, fmt.Errorf("%q names %d sessions of %s; use more of the session id", q, len(found), ws.Name)
	}
}

// sessionLabel is how a session is named in the terminal: its tab title,
// else its agent and short id.
func sessionLabel(s apiSession) string {
	short := s.SessionID
	if len(short) > 8 {
		short = short[:8]
	}
	return cmp.Or(s.Title, cmp.Or(s.Agent, "claude")+" "+short)
}
