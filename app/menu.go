package main

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/rs/zerolog"

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

// runMenu runs the menu bar until ctx ends, or — when there can be none —
// just the notifications, in the background. why is trayUnavailable's
// answer.
func runMenu(ctx context.Context, c config, b *bridge, quit func(), why error, trouble *troubleHook, log zerolog.Logger) {
	settings, err := tray.LoadSettings(filepath.Join(c.StateDir, "tray.json"))
	if err != nil {
		log.Warn().Err(err).Msg("tray settings")
	}
	cfg := tray.Config{
		Engine: b.engine, Pairing: b.pairing, Settings: settings, Log: log,
		LoginItem: newLoginItem(c, log),
		Actions: tray.Actions{
			OpenURL:  openBrowser,
			CopyText: copyText,
			ViewerLink: func(ctx context.Context, ws string) (string, error) {
				link, _, err := b.api.ViewerLink(c.Addr, ws)
				return link, err
			},
			Viewing: b.api.Viewing,
			LogDir:  c.LogDir,
			Quit:    quit,
		},
	}
	notes := tray.NotificationsAvailable()
	if notes == nil {
		cfg.Notifier = tray.NewDesktopNotifier()
	}
	if why == nil {
		err := tray.RunSystray(ctx, func(shell tray.Shell) {
			cfg.Shell = shell
			m := tray.New(cfg)
			trouble.attach(m)
			go m.Run(ctx)
		})
		if err == nil {
			return
		}
		why = err
	}
	log.Info().Str("why", why.Error()).Msg("running without a menu bar")
	if notes != nil {
		log.Info().Str("why", notes.Error()).Msg("running without desktop notifications")
		return
	}
	go tray.New(cfg).Run(ctx)
}
