package discover

import (
	"path/filepath"
	"testing"
)

func TestReadCheckout(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, root string) string // returns the checkout dir
		wantBranch string
		wantRepo   string
		wantLinked bool
		wantErr    bool
	}{{
		name: "plain repository",
		setup: func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "myrepo", ".git", "HEAD"), "ref: refs/heads/feature/x\n")
			return filepath.Join(root, "myrepo")
		},
		wantBranch: "feature/x", wantRepo: "myrepo",
	}, {
		name: "worktree, absolute link",
		setup: func(t *testing.T, root string) string {
			makeWorktree(t, filepath.Join(root, "main"), filepath.Join(root, "wt"), "wt", "ref: refs/heads/me/wt", false)
			return filepath.Join(root, "wt")
		},
		wantBranch: "me/wt", wantRepo: "main", wantLinked: true,
	}, {
		name: "worktree, relative link",
		setup: func(t *testing.T, root string) string {
			makeWorktree(t, filepath.Join(root, "repos", "main"), filepath.Join(root, "ws", "a", "b"), "b", "ref: refs/heads/rel", true)
			return filepath.Join(root, "ws", "a", "b")
		},
		wantBranch: "rel", wantRepo: "main", wantLinked: true,
	}, {
		name: "worktree of a bare repository",
		setup: func(t *testing.T, root string) string {
			gitDir := filepath.Join(root, "proj.git", "worktrees", "w")
			writeFile(t, filepath.Join(root, "w", ".git"), "gitdir: "+gitDir)
			writeFile(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/main")
			writeFile(t, filepath.Join(gitDir, "commondir"), "../..")
			return filepath.Join(root, "w")
		},
		wantBranch: "main", wantRepo: "proj", wantLinked: true,
	}, {
		name: "detached",
		setup: func(t *testing.T, root string) string {
			makeWorktree(t, filepath.Join(root, "main"), filepath.Join(root, "wt"), "wt", "0123456789abcdef0123456789abcdef01234567", false)
			return filepath.Join(root, "wt")
		},
		wantRepo: "main", wantLinked: true,
	}, {
		name: "ref outside refs/heads",
		setup: func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "r", ".git", "HEAD"), "ref: refs/remotes/origin/main\n")
			return filepath.Join(root, "r")
		},
		wantRepo: "r",
	}, {
		name: "worktree whose git dir is gone",
		setup: func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "wt", ".git"), "gitdir: /nonexistent/.git/worktrees/wt\n")
			return filepath.Join(root, "wt")
		},
		wantLinked: true, wantRepo: "wt", // no commondir to follow
	}, {
		name:    "no .git",
		setup:   func(t *testing.T, root string) string { return mkdir(t, filepath.Join(root, "plain")) },
		wantErr: true,
	}, {
		name: ".git file without gitdir",
		setup: func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "x", ".git"), "hello\n")
			return filepath.Join(root, "x")
		},
		wantErr: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t, resolvePath(t.TempDir()))
			co, err := readCheckout(dir)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if co.Branch != tt.wantBranch || co.repo() != tt.wantRepo || co.Linked != tt.wantLinked {
				t.Errorf("got branch %q repo %q linked %v, want %q %q %v", co.Branch, co.repo(), co.Linked, tt.wantBranch, tt.wantRepo, tt.wantLinked)
			}
		})
	}
}

// TestReadCheckoutRealGit checks the layout the tests fake against what
// git itself writes.
func TestReadCheckoutRealGit(t *testing.T) {
	git := realGit(t)
	root := resolvePath(t.TempDir())
	main, wt := filepath.Join(root, "repos", "webapp"), filepath.Join(root, "workspaces", "webapp", "tokyo")
	mkdir(t, main)
	mkdir(t, filepath.Dir(wt))
	git(main, "init", "-q", "-b", "main")
	git(main, "commit", "-q", "--allow-empty", "-m", "init")
	git(main, "worktree", "add", "-q", "-b", "me/tokyo", wt)

	co, err := readCheckout(wt)
	if err != nil {
		t.Fatal(err)
	}
	if !co.Linked || co.Branch != "me/tokyo" || co.repo() != "webapp" {
		t.Errorf("worktree: %+v", co)
	}
	co, err = readCheckout(main)
	if err != nil {
		t.Fatal(err)
	}
	if co.Linked || co.Branch != "main" || co.repo() != "webapp" {
		t.Errorf("main: %+v", co)
	}

	ws, err := ScanConductorFolders(root)
	if err != nil || len(ws) != 1 || ws[0].Branch != "me/tokyo" || ws[0].Directory != wt {
		t.Errorf("ScanConductorFolders = %+v, %v", ws, err)
	}
}
