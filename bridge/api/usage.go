package api

import (
	"context"
	"net/http"
	"strings"

	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/usage"
)

// UsageHistory reads the whole usage history (usage.Source, with a Cache
// so a refresh parses only what changed).
type UsageHistory interface {
	Read(ctx context.Context) (*usage.History, error)
}

// usageReport answers GET /api/usage?by=&since=&until=&tz=[&cache=no]: the usage
// command's report as JSON. A browser sees the turns of the workspaces it
// may see only (paired ones, unless exposure is all), and no file names.
func (s *Server) usageReport(w http.ResponseWriter, r *http.Request) {
	if s.Usage == nil {
		writeError(w, http.StatusNotFound, "usage is not available in this bridge")
		return
	}
	v := r.URL.Query()
	q, err := usage.ParseQuery(v.Get("by"), v.Get("since"), v.Get("until"), v.Get("tz"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.Busy != nil {
		defer s.Busy()()
	}
	read := s.Usage.Read
	if v.Get("cache") == "no" {
		// The usage command's --no-cache. Only the user's own programs
		// may have the whole history read again on demand.
		fresh, ok := s.Usage.(interface {
			ReadFresh(context.Context) (*usage.History, error)
		})
		if !ok || s.browserScoped(r) {
			writeError(w, http.StatusBadRequest, "cache=no is not available here")
			return
		}
		read = fresh.ReadFresh
	}
	h, err := read(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "read usage: "+err.Error())
		return
	}
	scoped := s.Pairing != nil && s.browserScoped(r) && s.Pairing.Exposure() != pairing.ExposeAll
	if scoped {
		h = s.pairedOnly(r, h)
	}
	rep, err := usage.Summarize(h, q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if scoped {
		rep.Scope = "paired"
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, rep)
}

// pairedOnly keeps the turns run in a workspace r may see (in its folder
// or below), and the plan limits recorded there, and none of what names
// the rest: file counts and errors.
func (s *Server) pairedOnly(r *http.Request, h *usage.History) *usage.History {
	sees := s.visibility(r)
	var dirs []string
	for _, ws := range s.Engine.Workspaces() {
		if sees(ws.ID) && ws.Directory != "" {
			dirs = append(dirs, strings.TrimSuffix(ws.Directory, "/"))
		}
	}
	in := func(dir string) bool {
		for _, d := range dirs {
			if dir == d || strings.HasPrefix(dir, d+"/") {
				return true
			}
		}
		return false
	}
	out := &usage.History{}
	for _, t := range h.Turns {
		if in(t.Workspace) {
			out.Turns = append(out.Turns, t)
		}
	}
	for _, l := range h.Limits {
		if in(l.Workspace) {
			out.Limits = append(out.Limits, l)
		}
	}
	return out
}

// usagePage serves the usage page. Like the viewer's page it holds no
// data: it reads /api/usage with the viewer's cookie.
func (s *Server) usagePage(w http.ResponseWriter, r *http.Request) {
	r.SetPathValue("file", "usage.html")
	s.viewerFile(w, r)
}
