package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"

	"conductorbridge/bridge/auth"
)

// pairCmd pairs (or with unpair, unpairs) a workspace with Chrome — the
// same call the tray's checkbox makes.
func pairCmd(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	c, fs, err := clientFlags(name, args, stderr, nil)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: conductor-bridge %s <workspace>", name)
	}
	ws, err := findWorkspace(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	var res apiWorkspace
	if err := apiCall(ctx, c, http.MethodPost, "/api/workspaces/"+ws.ID+"/"+name, nil, &res); err != nil {
		return err
	}
	if res.Paired {
		fmt.Fprintf(stdout, "%s (%s) is paired with Chrome\n", field(res.Name), field(res.ID))
	} else {
		fmt.Fprintf(stdout, "%s (%s) is not paired with Chrome\n", field(res.Name), field(res.ID))
	}
	return nil
}

// expose sets which workspaces a browser may see: paired ones, or all.
func expose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, fs, err := clientFlags("expose", args, stderr, nil)
	if err != nil {
		return err
	}
	var res struct {
		Exposure string `json:"exposure"`
	}
	switch fs.NArg() {
	case 0:
		err = apiCall(ctx, c, http.MethodGet, "/api/settings", nil, &res)
	case 1:
		err = apiCall(ctx, c, http.MethodPut, "/api/settings", map[string]string{"exposure": fs.Arg(0)}, &res)
	default:
		return errors.New("usage: conductor-bridge expose [paired|all]")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "browsers see: %s workspaces\n", res.Exposure)
	return nil
}

// openViewer prints a one-time link to the viewer and opens it in the
// browser. Given a workspace, the viewer shows it (and it is paired).
func openViewer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var printOnly, usagePage *bool
	c, fs, err := clientFlags("open", args, stderr, func(fs *flag.FlagSet) {
		printOnly = fs.Bool("print", false, "only print the link")
		usagePage = fs.Bool("usage", false, "open the usage page (what every turn cost) instead of the viewer")
	})
	if err != nil {
		return err
	}
	body := map[string]string{}
	switch fs.NArg() {
	case 0:
	case 1:
		if *usagePage {
			return errors.New("usage: conductor-bridge open --usage (the usage page shows every workspace)")
		}
		ws, err := findWorkspace(ctx, c, fs.Arg(0))
		if err != nil {
			return err
		}
		body["workspace"] = ws.ID
	default:
		return errors.New("usage: conductor-bridge open [--print] [--usage | <workspace>]")
	}
	var res struct {
		URL    string `json:"url"`
		Paired bool   `json:"paired"`
	}
	if err := apiCall(ctx, c, http.MethodPost, "/api/viewer-link", body, &res); err != nil {
		return err
	}
	if res.Paired {
		fmt.Fprintf(stderr, "paired %s with Chrome\n", body["workspace"])
	}
	if *usagePage {
		res.URL += "?to=usage" // the link signs the browser in, then shows the usage page
	}
	fmt.Fprintln(stdout, res.URL)
	fmt.Fprintln(stderr, "(the link works once, within 5 minutes)")
	if *printOnly {
		return nil
	}
	if err := openURL(c.StateDir, res.URL, true); err != nil {
		return fmt.Errorf("%w; open the link above in a browser yourself", err)
	}
	return nil
}

// token prints the API token, for tools that call the bridge; --rotate
// replaces it, cutting off everyone who held the old one.
func token(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rotate *bool
	c, _, err := clientFlags("token", args, stderr, func(fs *flag.FlagSet) {
		rotate = fs.Bool("rotate", false, "replace the token; holders of the old one (and their cookies, open streams) are cut off")
	})
	if err != nil {
		return err
	}
	path := filepath.Join(c.StateDir, tokenFile)
	// Only a bridge makes a state folder and its token: a token printed
	// for a folder no bridge uses would open nothing.
	_, herr := probeHealth(ctx, c.client())
	if herr != nil && !couldScan(herr) {
		return herr // a bridge of another state folder runs: say which
	}
	if *rotate {
		// The running bridge rotates it, so it cuts off open streams at
		// once; with no bridge running, rotate the file it will read.
		if herr == nil {
			if err := apiCall(ctx, c, http.MethodPost, "/api/token/rotate", nil, nil); err != nil {
				return err
			}
		} else {
			s, err := auth.Open(path)
			if err != nil {
				return noToken(c, err)
			}
			if err := s.Rotate(); err != nil {
				return err
			}
		}
		fmt.Fprintln(stderr, "token rotated; the old one no longer works")
	}
	t, err := auth.Read(path)
	if err != nil {
		return noToken(c, err)
	}
	fmt.Fprintln(stdout, t)
	return nil
}

// noToken says why there is no token to print: no bridge has run with
// this state folder.
func noToken(c config, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no API token in %s: no bridge has run with this state folder (start one: conductor-bridge; or pass --state-dir of the one running)", c.StateDir)
	}
	return fmt.Errorf("read the API token: %w", err)
}
