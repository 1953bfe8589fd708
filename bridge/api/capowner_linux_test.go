package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/httplimit"
	"conductorbridge/testkit/usertest"
)

// Issue 24, finding 2: another OS user opened the whole connection cap,
// each connection after one /health and kept alive, and the owner's
// /health, list and hooks waited behind them. The cap must be the owner's
// own, and another account's connection must close right after its answer.

// floodPlan is what the flooding process is told.
type floodPlan struct {
	Addr string `json:"addr"`
	// Health connections ask /health once and try to stay open; Silent
	// ones connect and send nothing; Refused ones ask for the workspace
	// list (a 403) and try to stay open.
	Health, Silent, Refused int
}

// floodReport is what it saw.
type floodReport struct {
	Answered   int      `json:"answered"`    // requests that got an answer
	ClosedOpen int      `json:"closed_open"` // answered connections the server then closed
	StillOpen  []string `json:"still_open"`  // answered connections still open after the answer
}

const floodPrefix = "FLOOD-REPORT "

// TestFloodProcess is the flooding user when run by
// TestAnotherUserCannotFillTheCap: it opens its connections, reports, and
// holds whatever is left open until its stdin closes.
func TestFloodProcess(t *testing.T) {
	p := childInput[floodPlan](t, "CB_FLOOD", "TestAnotherUserCannotFillTheCap")
	var held []net.Conn
	var rep floodReport
	ask := func(kind, request string) {
		c, err := net.Dial("tcp", p.Addr)
		if err != nil {
			return
		}
		held = append(held, c)
		if request == "" {
			return
		}
		// A hang guard only: an answer that does not come within it is
		// one the owner's cap kept from us.
		c.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		if _, err := io.WriteString(c, request); err != nil {
			return
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		rep.Answered++
		// Kept alive, the connection would hold a slot: the server must
		// hang up now, not after an idle timeout.
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := br.ReadByte(); err == io.EOF {
			rep.ClosedOpen++
		} else {
			rep.StillOpen = append(rep.StillOpen, fmt.Sprintf("%s (%d): %v", kind, resp.StatusCode, err))
		}
	}
	host := "Host: " + p.Addr + "\r\n"
	for range p.Health {
		ask("/health", "GET /health HTTP/1.1\r\n"+host+"\r\n")
	}
	for range p.Refused {
		ask("list", "GET /api/workspaces HTTP/1.1\r\n"+host+"Origin: "+extOrigin+"\r\n\r\n")
	}
	for range p.Silent {
		ask("silent", "")
	}
	b, _ := json.Marshal(rep)
	fmt.Println(floodPrefix + string(b))
	io.Copy(io.Discard, os.Stdin) // hold the connections until told
	for _, c := range held {
		c.Close()
	}
}

func TestAnotherUserCannotFillTheCap(t *testing.T) {
	other := usertest.Second(t)
	const maxConns, others = 8, 4
	e := newEnvListening(t, func(ln net.Listener, s *Server) net.Listener {
		return httplimit.Limits{MaxConns: maxConns, Others: others}.ListenOwn(ln, s.ConnOwner)
	})
	// More than the owner's cap of kept-alive /health connections, then
	// refused ones, then four times the cap of silent ones.
	plan := floodPlan{Addr: e.ts.Listener.Addr().String(), Health: maxConns + 2, Refused: 2, Silent: 4 * maxConns}
	in, _ := json.Marshal(plan)
	cmd := usertest.Process(t, other, "TestFloodProcess", "CB_FLOOD="+string(in))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	var rep *floodReport
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for rep == nil && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if line, ok := strings.CutPrefix(sc.Text(), floodPrefix); ok {
			rep = &floodReport{}
			if err := json.Unmarshal([]byte(line), rep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rep == nil {
		t.Fatalf("the flood reported nothing:\n%s", out.String())
	}
	// /health stays open to everyone: some of the flood's are answered.
	if rep.Answered == 0 {
		t.Errorf("none of another user's requests was answered")
	}
	// Another account is served (its /health, its 403) and hung up on.
	if len(rep.StillOpen) > 0 {
		t.Errorf("another user's connections stayed open after their answer: %d of %d, e.g. %s",
			len(rep.StillOpen), rep.Answered, rep.StillOpen[0])
	}
	t.Logf("the flood: %d requests answered, %d connections closed after their answer", rep.Answered, rep.ClosedOpen)

	// While the flood holds what it can, the owner's browser, CLI and hook
	// calls are all answered, each on a connection of its own.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	ext := e.srv.Sessions.ExtensionToken()
	for _, r := range []struct {
		name, method, path, bearer string
		want                       int
	}{
		{"health", "GET", "/health", "", 200},
		{"list, extension token", "GET", "/api/workspaces", ext, 200},
		{"list, API token", "GET", "/api/workspaces", e.token.Value(), 200},
		{"hook", "POST", "/hook/stop", e.hook.Value(), 200},
	} {
		for i := range maxConns + 1 {
			// A hang guard, not a timing assertion: locked out, the
			// request would wait in the kernel's queue forever.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			req, _ := http.NewRequestWithContext(ctx, r.method, e.ts.URL+r.path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			if r.bearer != "" {
				req.Header.Set("Authorization", "Bearer "+r.bearer)
			}
			if r.bearer == ext {
				req.Header.Set("Origin", extOrigin)
			}
			resp, err := client.Do(req)
			cancel()
			if err != nil {
				t.Fatalf("owner's %s (#%d) during another user's flood: %v", r.name, i+1, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != r.want {
				t.Fatalf("owner's %s: %d, want %d", r.name, resp.StatusCode, r.want)
			}
		}
	}
}
