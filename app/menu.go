package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/hooks"
	"conductorbridge/tray"
)

// trayUnavailable says why the bridge runs without a menu bar, or nil.
func trayUnavailable(headless bool) error {
	if headless {
		return errors.New("--headless")
	}
	return tray.Available()
}

// troubleHook shows every error the bridge logs in the menu (the error
// icon and a line at the top), so a problem does not hide in a log file.
type troubleHook struct {
	mu   sync.Mutex
	menu *tray.Menu
	last string // an error logged before the menu existed
}

func (h *troubleHook) Run(_ *zerolog.Event, level zerolog.Level, msg string) {
	if level < zerolog.ErrorLevel {
		return
	}
	msg += " (see the logs)"
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = msg
	if h.menu != nil {
		h.menu.SetTrouble(msg)
	}
}

func (h *troubleHook) attach(m *tray.Menu) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.menu = m
	if h.last != "" {
		m.SetTrouble(h.last)
	}
}

// offerHooks wires the menu's one-time offer to set up message hooks in
// Conductor's and registered workspaces. Once accepted, workspaces that
// appear later get them too (what --auto-hooks does). A `go run` build is
// not offered: hooks would call a binary that is about to disappear.
func offerHooks(ctx context.Context, c config, b *bridge, cfg *tray.Config, log zerolog.Logger) {
	if _, err := installable(); err != nil {
		return
	}
	spec, err := hookSpec(c)
	if err != nil {
		return
	}
	var once sync.Once
	follow := func() { once.Do(func() { go installHooksAsFound(ctx, b.engine, c.agents, spec, log) }) }
	if cfg.Settings.HooksOffer == "accepted" {
		follow()
	}
	cfg.Actions.MissingHooks = func(list []engine.Info) []string {
		var dirs []string
		for _, w := range list {
			if agentFolder(c.agents, w.Source) {
				continue // every folder claude ever ran in: not ours to change
			}
			if on, _, err := hooks.Status(settingsFile(w.Directory)); err == nil && !on {
				dirs = append(dirs, w.Directory)
			}
		}
		return dirs
	}
	cfg.Actions.InstallHooks = func(dirs []string) error {
		var failed []string
		for _, d := range dirs {
			if _, err := hooks.Install(settingsFile(d), spec); err != nil {
				log.Warn().Err(err).Str("dir", d).Msg("hooks not installed")
				failed = append(failed, d)
				continue
			}
			log.Info().Str("dir", d).Msg("hooks installed (accepted in the menu)")
		}
		if len(failed) > 0 {
			return fmt.Errorf("hooks not installed in %d of %d workspaces", len(failed), len(dirs))
		}
		follow()
		return nil
	}
}

// runMenu runs the menu bar until ctx ends, or — when there can be none —
// just the notifications, in the background. why is trayUnavailable's
// answer; onExit is what AppKit's termination runs (shutdown.onExit).
func runMenu(ctx context.Context, c config, b *bridge, quit, onExit func(), why error, trouble *troubleHook, log zerolog.Logger) {
	settings, err := tray.LoadSettings(filepath.Join(c.StateDir, "tray.json"))
	if err != nil {
		log.Warn().Err(err).Msg("tray settings")
	}
	cfg := tray.Config{
		Engine: b.engine, Pairing: b.pairing, Settings: settings, Log: log, Coalesce: c.NotifyWindow,
		LoginItem: newLoginItem(c, log),
		Actions: tray.Actions{
			OpenURL:  func(u string) error { return openURL(c.StateDir, u, false) }, // no link in argv
			CopyText: copyText,
			ViewerLink: func(ctx context.Context, ws string) (string, error) {
				link, _, err := b.api.ViewerLink(c.Addr, ws)
				return link, err
			},
			UsageLink: func(ctx context.Context) (string, error) {
				link, _, err := b.api.ViewerLink(c.Addr, "")
				return link + "?to=usage", err
			},
			Viewing: b.api.Viewing,
			InstallExtension: func() (string, error) {
				// What `conductor-bridge extension install` does.
				exe, err := installable()
				if err != nil {
					return "", err
				}
				rec, browsers, err := installExtension(c, exe, nil)
				if err == nil {
					log.Info().Strs("browsers", browsers).Msg("native messaging host installed")
				}
				return rec.Extension, err
			},
			LogDir: c.LogDir,
			Quit:   quit,
		},
	}
	offerHooks(ctx, c, b, &cfg, log)
	notes := tray.NotificationsAvailable()
	if notes == nil {
		cfg.Notifier = tray.NewDesktopNotifier()
	}
	withTray := func() error {
		return tray.RunSystray(ctx, func(shell tray.Shell) {
			cfg := cfg
			cfg.Shell = shell
			m := tray.New(cfg)
			trouble.attach(m)
			go m.Run(ctx)
		}, onExit)
	}
	if why == nil {
		err := withTray()
		if err == nil || ctx.Err() != nil {
			return
		}
		why = err
	}
	log.Info().Str("why", why.Error()).Msg("running without a menu bar")
	if notes != nil {
		log.Info().Str("why", notes.Error()).Msg("running without desktop notifications")
	}
	headless, stopHeadless := context.WithCancel(ctx)
	defer stopHeadless()
	if notes == nil {
		go tray.New(cfg).Run(headless) // notifications only
	}
	if !errors.Is(why, tray.ErrNoTrayHost) {
		return
	}
	// A session without a tray host yet: a login item can start before the
	// desktop's panel does. Look again now and then, and show the icon as
	// soon as there is one.
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if tray.Available() != nil {
				continue
			}
			stopHeadless()
			log.Info().Msg("a tray host appeared: showing the menu bar")
			if err := withTray(); err != nil && ctx.Err() == nil {
				log.Warn().Err(err).Msg("menu bar stopped")
			}
			return
		}
	}
}
