package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/nativehost"
)

// nativeHost is `conductor-bridge native-host <origin>`: the Chrome native
// messaging host. Chrome runs the binary named in the host manifest with
// the calling extension's origin as its only argument, so a first argument
// "chrome-extension://…" lands here too (run). It speaks the framing on
// stdin and stdout, which must carry nothing else; what goes wrong is said
// in the replies and on stderr, which Chrome keeps in its log.
func nativeHost(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("native-host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	h := &nativehost.Host{
		Origin:  fs.Arg(0),
		Allowed: nativeOrigins(c.StateDir),
		UID:     os.Getuid(),
		Errors:  stderr,
		Bridge: func() (string, error) {
			ri, err := readRunFile(c.StateDir)
			if err != nil {
				return "", err
			}
			return ri.Addr, nil
		},
		// The extension token, derived from the API token in its 0600
		// file: a browser's rights (paired workspaces, messages), never
		// the API token itself.
		Credential: func() (string, error) {
			tok, err := auth.Open(filepath.Join(c.StateDir, tokenFile))
			if err != nil {
				return "", err
			}
			return (&auth.Sessions{Token: tok}).ExtensionToken(), nil
		},
	}
	// The usage page for the panel: a one-time link, asked of the bridge
	// through its socket as `open --usage` does.
	h.UsageLink = func(ctx context.Context) (string, error) {
		var res struct{ URL string }
		if err := apiCall(ctx, c, http.MethodPost, "/api/viewer-link", nil, &res); err != nil {
			return "", err
		}
		return res.URL + "?to=usage", nil
	}
	if err := h.Serve(ctx, stdin, stdout); err != nil {
		return fmt.Errorf("native host: %w", err)
	}
	return nil
}
