// Package registrar adopts existing git worktrees as workspaces, creates
// detached ones, and lets them go again. Registrations persist in the
// discover.Registry; the engine picks them up on its next scan, which
// Register runs at once.
package registrar

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/worktree"
)

// ErrNotRegistered is returned when unregistering a workspace that the
// bridge did not adopt (Conductor's own, or a plain Claude Code project).
var ErrNotRegistered = errors.New("workspace was not registered with the bridge")

// Engine is what registration needs from the engine.
type Engine interface {
	Rescan(ctx context.Context)
	Workspaces() []engine.Info
	Workspace(id string) (engine.Info, bool)
}

// Registrar registers and unregisters worktrees.
type Registrar struct {
	Registry *discover.Registry
	Engine   Engine
	// Worktrees is where worktrees the bridge creates live; only those
	// are ever removed by the bridge.
	Worktrees string
}

// Register adopts the work tree at dir (resolved through symlinks) and
// returns its workspace. Registering twice returns the same workspace.
func (r *Registrar) Register(ctx context.Context, dir string) (engine.Info, error) {
	top, err := worktree.Validate(ctx, dir)
	if err != nil {
		return engine.Info{}, err
	}
	if _, err := r.Registry.Add(top); err != nil {
		return engine.Info{}, fmt.Errorf("save registration: %w", err)
	}
	r.Engine.Rescan(ctx)
	for _, in := range r.Engine.Workspaces() {
		if in.Directory == top {
			return in, nil
		}
	}
	return engine.Info{}, fmt.Errorf("registered %s but the engine does not list it", top)
}

// Create adds a detached worktree of repo's HEAD under Worktrees and
// registers it.
func (r *Registrar) Create(ctx context.Context, repo string) (engine.Info, error) {
	dir, err := worktree.CreateDetached(ctx, repo, r.Worktrees)
	if err != nil {
		return engine.Info{}, err
	}
	return r.Register(ctx, dir)
}

// Unregister lets a registered workspace go. A worktree the bridge created
// is removed too when it holds no changes; otherwise kept says why it was
// left in place.
func (r *Registrar) Unregister(ctx context.Context, id string) (removed bool, kept string, err error) {
	in, ok := r.Engine.Workspace(id)
	if !ok {
		return false, "", fmt.Errorf("unknown workspace %s", id)
	}
	if ok, err := r.Registry.Remove(in.Directory); err != nil {
		return false, "", fmt.Errorf("save registration: %w", err)
	} else if !ok {
		return false, "", ErrNotRegistered
	}
	if r.created(in.Directory) {
		if err := worktree.RemoveIfClean(ctx, in.Directory); err != nil {
			kept = err.Error()
		} else {
			removed = true
		}
	}
	r.Engine.Rescan(ctx)
	return removed, kept, nil
}

func (r *Registrar) created(dir string) bool {
	root, err := filepath.EvalSymlinks(r.Worktrees)
	if err != nil {
		return false
	}
	return strings.HasPrefix(dir, root+string(filepath.Separator))
}
