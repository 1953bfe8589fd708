package browse

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"conductorbridge/testkit/usertest"
)

// foreignPrefix starts the lines the foreign listener prints for each
// request it is sent.
const foreignPrefix = "FOREIGN-REQ "

// TestForeignListenerProcess is the program another OS user runs: it
// holds a port on 127.0.0.1 and answers /health exactly as gstack does,
// hoping to be sent the token, and prints every request it gets.
func TestForeignListenerProcess(t *testing.T) {
	if os.Getenv("CB_FOREIGN_LISTEN") == "" {
		t.Skip("run by TestPortHeldByAnotherUser")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("PORT %d\n", ln.Addr().(*net.TCPAddr).Port)
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Printf("%s%s %s auth=%q\n", foreignPrefix, r.Method, r.URL, r.Header.Get("Authorization"))
		if r.URL.Path == "/health" {
			fmt.Fprint(w, `{"status":"healthy","mode":"launched","uptime":1,"tabs":1}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
	}))
}

// Another OS user holds the port the state file names, its program
// answering /health as gstack's would: the kernel says who holds the
// connection's other end, and the token is never sent to it.
func TestPortHeldByAnotherUser(t *testing.T) {
	other := usertest.Second(t)
	cmd := usertest.Process(t, other, "TestForeignListenerProcess", "CB_FOREIGN_LISTEN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	port := 0
	for port == 0 && lines.Scan() {
		fmt.Sscanf(lines.Text(), "PORT %d", &port)
	}
	if port == 0 {
		t.Fatal("the foreign listener said no port")
	}
	seen := make(chan []string)
	go func() {
		var reqs []string
		for lines.Scan() {
			if r, ok := strings.CutPrefix(lines.Text(), foreignPrefix); ok {
				reqs = append(reqs, r)
			}
		}
		seen <- reqs
	}()

	e := newEnv(t)
	tok := token()
	e.writeState(map[string]any{"pid": cmd.Process.Pid, "port": port, "token": tok, "startedAt": "run-1"})
	e.sweep()
	waitFor(t, "the attempts to end", func() bool { return e.logs.Count("not followed after") == 1 })
	e.idle()
	cmd.Process.Kill()
	reqs := <-seen
	if len(reqs) == 0 {
		t.Fatal("the foreign listener was never asked /health: the test proves nothing")
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, "GET /health ") || strings.Contains(r, tok) {
			t.Errorf("the foreign listener got %s", r)
		}
	}
	if e.live() {
		t.Error("followed another user's server")
	}
	if n := e.logs.Count("port is not the user's"); n != 1 {
		t.Errorf("said %d times:\n%s", n, e.logs)
	}
	e.agentStreams()
}
