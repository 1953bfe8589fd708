package discover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Scanner gathers workspaces from every source and merges them. Set the
// roots that apply; an empty root (or nil Registry) skips that source. It is
// meant to run every couple of seconds: what it read from transcripts is
// remembered between scans, and a failing source is logged once per
// distinct failure, not once per scan. Safe for concurrent use; scans are
// serialised.
type Scanner struct {
	ConductorDB   string    // Conductor's SQLite database
	ConductorRoot string    // ~/conductor: workspaces/, repos/
	Registry      *Registry // directories the bridge was asked to adopt
	// Agents find their own sessions: a Conductor tab's record
	// (TabRecords), the folders of their records (Projects), plain runs
	// (Runs); they name Conductor's rows (Aliased). app lists them.
	Agents []Agent
	// RunWindow is how recently a plain run must have written its record
	// to be a live session (default 10 min, the engine's active window).
	// Conductor's tabs are found by their ids, however old.
	RunWindow time.Duration
	Log       func(msg string)

	// Processes lists live agent processes (symlink-resolved cwd → pid)
	// for Workspace.PID; nil finds none (app places each agent's process
	// by its driver's rule after the scan).
	Processes func() (map[string]int, error)

	mu          sync.Mutex
	transcripts *transcriptCache
	reported    map[string]string      // source → the last problem logged for it
	known       map[string]dbIdentity  // directory → what the last good database read said of it
	lastGood    map[string][]Workspace // source → its last successful scan, kept while it fails
	db          conductorConn          // kept open between scans for PRAGMA data_version
}

// readConductor is ReadConductor on the Scanner's own connection, which
// skips the queries while the database is unchanged.
func (s *Scanner) readConductor(ctx context.Context) (ConductorRead, error) {
	if s.ConductorRoot == "" {
		return ConductorRead{}, fmt.Errorf("read conductor db: no conductor root to place workspaces in")
	}
	rows, err := s.db.read(ctx, s.ConductorDB)
	if err != nil {
		return ConductorRead{}, err
	}
	return placeRows(rows, s.ConductorRoot, s.Agents), nil
}

// Close drops the Scanner's connection to Conductor's database; a later
// Scan opens a new one.
func (s *Scanner) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.db.close()
	return nil
}

// keep returns ws when a source's scan succeeded, remembering it, else
// the source's last good picture: a transient failure ("too many open
// files") must not make its workspaces vanish and end their streams.
func (s *Scanner) keep(source string, ws []Workspace, err error) []Workspace {
	if s.lastGood == nil {
		s.lastGood = make(map[string][]Workspace)
	}
	if err != nil {
		return s.lastGood[source]
	}
	s.lastGood[source] = ws
	return ws
}

// dbIdentity is what Conductor's database decides about a workspace and its
// folder cannot tell: kept from the last good read so that a database that
// is unreadable for a scan or two does not change a workspace's id.
type dbIdentity struct {
	ID, Repo, Name string
	Archived       bool
}

// Scan returns every workspace found, merged by directory, archived ones
// included (Archived set: the caller decides), sorted by repo, name and
// directory. Sources that fail are logged and left out, so the error is
// only ever the context's.
//
// When one directory is found by several sources the more knowing one wins
// (database > folders > registered > agents' record folders > agents' plain
// runs); the others fill in the fields it left empty and add the sessions
// it lacks. ID is Conductor's id for a database workspace, else
// PathID(Directory). ProjectDir is where the records of Directory were
// found, else where the first agent that keeps a folder per directory
// (Projects) would write them.
//
// While the database cannot be read (busy, locked, corrupt, gone), a
// workspace found by another source at a directory that the last good read
// listed keeps the ID, Repo, Name and Archived that read gave it, so ids do
// not flip for a scan. Each good read replaces what is remembered: a
// workspace the database no longer lists falls back to PathID.
func (s *Scanner) Scan(ctx context.Context) ([]Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.transcripts == nil {
		s.transcripts = newTranscriptCache()
	}

	var fromDB, fromFolders, fromRegistry, fromProjects, fromRuns []Workspace
	if s.ConductorDB != "" {
		read, err := s.readConductor(ctx)
		ws, missing := read.Workspaces, read.Missing
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			s.report("conductor-db", fmt.Sprintf("no Conductor database at %s: reading Conductor's folders only", s.ConductorDB), "")
		case err != nil:
			s.report("conductor-db", fmt.Sprintf("cannot read Conductor's database, reading its folders instead: %v", err),
				"Conductor's database is readable again")
		default:
			s.report("conductor-db", "", "Conductor's database is readable again")
			if len(missing) > 0 {
				s.report("conductor-db-schema", "Conductor's database lacks "+strings.Join(missing, "; "), "")
			} else {
				s.report("conductor-db-schema", "", "")
			}
			fromDB = ws
			s.remember(ws)
		}
	}
	projects := projectsOf(s.Agents)
	if projects != nil {
		ws, err := s.transcripts.scanProjects(projects)
		s.reportErr(projects.Name()+"-projects", err)
		fromProjects = s.keep(projects.Name()+"-projects", ws, err)
	}
	since := time.Now().Add(-cmp.Or(s.RunWindow, 10*time.Minute))
	for _, a := range s.Agents {
		if runs, ok := a.(Runs); ok {
			ws, err := recentRuns(runs, since)
			s.reportErr(a.Name()+"-sessions", err)
			fromRuns = append(fromRuns, s.keep(a.Name()+"-sessions", ws, err)...)
		}
	}
	if s.ConductorRoot != "" {
		// A transcript's cwd in a <repo>/.conductor/ folder names a repo
		// whose legacy workspaces the folders alone cannot find.
		cwds := make([]string, 0, len(fromProjects)+len(fromRuns))
		for _, w := range slices.Concat(fromProjects, fromRuns) {
			cwds = append(cwds, w.Directory)
		}
		ws, err := ScanConductorFolders(s.ConductorRoot, cwds...)
		s.reportErr("conductor-folders", err)
		fromFolders = s.keep("conductor-folders", ws, err)
	}
	if s.Registry != nil {
		fromRegistry = ScanRegistered(s.Registry.List())
	}
	var pids map[string]int
	if s.Processes != nil {
		var err error
		pids, err = s.Processes()
		s.reportErr("processes", err)
	}

	out := merge(fromDB, fromFolders, fromRegistry, fromProjects, fromRuns)
	now := time.Now()
	for i := range out {
		w := &out[i]
		k, known := s.known[w.Directory]
		switch {
		case w.Source == SourceConductorDB && urlSafe(w.ID):
		case known:
			// The database could not be read this scan (after a good
			// read every remembered directory is a database row).
			w.ID, w.Archived = k.ID, k.Archived
			w.Repo, w.Name = cmp.Or(k.Repo, w.Repo), cmp.Or(k.Name, w.Name)
		default:
			w.ID = PathID(w.Directory)
		}
		if w.ProjectDir == "" && projects != nil {
			w.ProjectDir = filepath.Join(projects.RecordsRoot(), projects.ProjectFolder(w.Directory))
		}
		w.PID = pids[w.Directory]
		w.SeenAt = now
	}
	slices.SortFunc(out, func(a, b Workspace) int {
		return cmp.Or(cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Directory, b.Directory))
	})
	return out, nil
}

// remember replaces what the Scanner knows from the database with ws, the
// workspaces of a good read. Rows are joined by directory as merge does, so
// the live row wins over an archived one in a reused directory.
func (s *Scanner) remember(ws []Workspace) {
	known := make(map[string]dbIdentity, len(ws))
	for _, w := range merge(ws) {
		if urlSafe(w.ID) {
			known[w.Directory] = dbIdentity{ID: w.ID, Repo: w.Repo, Name: w.Name, Archived: w.Archived}
		}
	}
	s.known = known
}

// merge joins the sources, given most knowing first, by Directory.
func merge(sources ...[]Workspace) []Workspace {
	var out []Workspace
	at := make(map[string]int)
	for _, src := range sources {
		for _, w := range src {
			if w.Directory == "" {
				continue
			}
			i, ok := at[w.Directory]
			if !ok {
				at[w.Directory] = len(out)
				out = append(out, w)
				continue
			}
			cur := &out[i]
			if cur.Source == w.Source {
				// Conductor reuses a directory name after archiving a
				// workspace: the live row is the one that owns the
				// folder, and the archived one has nothing to add.
				if cur.Archived && !w.Archived {
					*cur = w
				}
				continue
			}
			fillEmpty(cur, w)
			cur.Sessions = mergeSessions(cur.Sessions, w.Sessions)
		}
	}
	return out
}

// fillEmpty copies into w what it does not know and other does.
func fillEmpty(w *Workspace, other Workspace) {
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&w.Name, other.Name},
		{&w.Repo, other.Repo},
		{&w.Branch, other.Branch},
		{&w.ProjectDir, other.ProjectDir},
		{&w.ConductorStatus, other.ConductorStatus},
		{&w.ConductorSession, other.ConductorSession},
	} {
		if *f.dst == "" {
			*f.dst = f.src
		}
	}
}

// urlSafe reports whether id can be used in a URL path as it is: RFC 3986
// unreserved characters only. Conductor's ids are UUIDs; anything else is
// replaced by a PathID rather than escaped everywhere it is used.
func urlSafe(id string) bool {
	if id == "" || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' && c != '~' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// report logs msg for a source when it differs from what was last logged for
// it. An empty msg means the source is fine again: recovered is logged if
// the source had a problem before.
func (s *Scanner) report(source, msg, recovered string) {
	if s.reported == nil {
		s.reported = make(map[string]string)
	}
	last := s.reported[source]
	if msg == last {
		return
	}
	s.reported[source] = msg
	switch {
	case msg != "":
		s.log(msg)
	case recovered != "":
		s.log(recovered)
	}
}

func (s *Scanner) reportErr(source string, err error) {
	if err != nil {
		s.report(source, err.Error(), source+": working again")
		return
	}
	s.report(source, "", source+": working again")
}

func (s *Scanner) log(msg string) {
	if s.Log != nil {
		s.Log(msg)
	}
}
