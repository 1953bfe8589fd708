// Command browse stands in for gstack's CLI (`$B`, browse/src/cli.ts at
// gstack commit 85fd9db) for tests where a real agent drives the
// stand-in browse server: it reads the state file ($BROWSE_STATE_FILE,
// else ./.gstack/browse.json: the tests' workspaces are not git
// repositories, where gstack would use the git root), posts
// {"command","args"} to /command with the token, prints the answer (with
// a final newline), and on an error prints its "error" and exits 1. It
// never starts a server: the test runs one.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: browse <command> [args...]")
		os.Exit(2)
	}
	path := os.Getenv("BROWSE_STATE_FILE")
	if path == "" {
		path = filepath.Join(".gstack", "browse.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fail("no browse server: %v", err)
	}
	var st struct {
		Port  int    `json:"port"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		fail("state file: %v", err)
	}
	body, _ := json.Marshal(map[string]any{"command": os.Args[1], "args": os.Args[2:]})
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(st.Port)+"/command", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+st.Token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		fail("[browse] %v", err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(text, &e) == nil && e.Error != "" {
			fail("%s", e.Error)
		}
		fail("%s", text)
	}
	os.Stdout.Write(text)
	if !bytes.HasSuffix(text, []byte("\n")) {
		os.Stdout.Write([]byte("\n"))
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
