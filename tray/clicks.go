package tray

import (
	"context"
	"net/url"
)

// click handles a menu click: one method per action. Nothing here waits:
// slow work goes async.
func (m *Menu) click(ctx context.Context, a Action) {
	act := m.cfg.Actions
	switch a.Kind {
	case actPair:
		m.togglePair(a.Workspace)
	case actConductor:
		m.openConductor(a.Workspace, a.Session)
	case actViewer:
		m.openViewer(ctx, a.Workspace)
	case actUsage:
		m.openUsage(ctx)
	case actCopy:
		m.async(func() func() { m.logErr("copy the workspace id", call(act.CopyText, a.Workspace)); return nil })
	case actMute:
		m.settings.ToggleMute(a.Workspace)
		m.saveSettings()
	case actHooksSetup:
		m.setUpHooks()
	case actHooksNever:
		m.settings.HooksOffer, m.noHooks = "declined", nil
		m.saveSettings()
	case actNotifyOn, actNotifyPaired, actNotifyOff:
		m.settings.Notifications = map[ActionKind]string{actNotifyOn: NotifyOn, actNotifyPaired: NotifyPaired, actNotifyOff: NotifyOff}[a.Kind]
		m.saveSettings()
	case actLogin:
		m.toggleLogin()
	case actExtension:
		m.installExtension()
	case actLogs:
		m.async(func() func() { m.logErr("open the logs", call(act.OpenURL, act.LogDir)); return nil })
	case actQuit:
		if act.Quit != nil {
			act.Quit()
		}
	}
}

func (m *Menu) logErr(what string, err error) {
	if err != nil {
		m.cfg.Log.Warn().Err(err).Msg(what)
	}
}

func (m *Menu) togglePair(ws string) {
	paired := m.paired[ws]
	m.async(func() func() {
		var err error
		if paired {
			err = m.cfg.Pairing.Unpair(ws)
		} else {
			err = m.cfg.Pairing.Pair(ws)
		}
		m.logErr("pairing from the menu failed", err)
		return m.refreshPaired
	})
}

// conductorURL opens a workspace, and the tab when one is named, in
// Conductor: conductor://workspace?id=<workspace>&session=<Conductor session id>.
func conductorURL(ws, session string) string {
	q := url.Values{"id": {ws}}
	if session != "" {
		q.Set("session", session)
	}
	// Encode puts keys in order, and id sorts before session.
	return "conductor://workspace?" + q.Encode()
}

func (m *Menu) openConductor(ws, session string) {
	open := m.cfg.Actions.OpenURL
	m.async(func() func() {
		m.logErr("open in Conductor", call(open, conductorURL(ws, session)))
		return nil
	})
}

func (m *Menu) openViewer(ctx context.Context, ws string) {
	act := m.cfg.Actions
	m.async(func() func() {
		if act.ViewerLink == nil {
			return nil
		}
		link, err := act.ViewerLink(ctx, ws)
		if err == nil {
			err = call(act.OpenURL, link)
		}
		m.logErr("open the session viewer", err)
		return m.refreshPaired
	})
}

func (m *Menu) openUsage(ctx context.Context) {
	act := m.cfg.Actions
	m.async(func() func() {
		if act.UsageLink == nil {
			return nil
		}
		link, err := act.UsageLink(ctx)
		if err == nil {
			err = call(act.OpenURL, link)
		}
		m.logErr("open the usage page", err)
		return nil
	})
}

func (m *Menu) setUpHooks() {
	install := m.cfg.Actions.InstallHooks
	if install == nil {
		return
	}
	dirs := m.noHooks
	m.async(func() func() {
		err := install(dirs)
		m.logErr("set up hooks", err)
		return func() {
			if err == nil {
				m.settings.HooksOffer, m.noHooks = "accepted", nil
				m.saveSettings()
			}
		}
	})
}

func (m *Menu) toggleLogin() {
	if m.cfg.LoginItem == nil {
		return
	}
	want := !*m.login
	m.async(func() func() {
		var err error
		if want {
			err = m.cfg.LoginItem.Install()
		} else {
			err = m.cfg.LoginItem.Uninstall()
		}
		m.logErr("change Start at login", err)
		if err != nil && want && m.cfg.Notifier != nil {
			// Refused (a translocated app, a disk image): the reason says
			// what the person must do, so show it where they look.
			m.logErr("show why Start at login is off", m.cfg.Notifier.Notify("Start at login is off", err.Error()))
		}
		on := m.cfg.LoginItem.Installed()
		return func() { m.login = &on }
	})
}

func (m *Menu) installExtension() {
	act := m.cfg.Actions
	if act.InstallExtension == nil {
		return
	}
	m.async(func() func() {
		dir, err := act.InstallExtension()
		if err != nil {
			m.logErr("write the Chrome extension", err)
			return nil
		}
		m.logErr("show the Chrome extension's folder", call(act.OpenURL, dir))
		m.cfg.Log.Info().Str("dir", dir).Msg("Chrome extension written; load it from chrome://extensions")
		if m.cfg.Notifier != nil {
			// The two clicks only the person can make, where they will see them.
			m.cfg.Notifier.Notify("Install the Chrome side panel",
				"In Chrome, open chrome://extensions, turn on Developer mode, click Load unpacked and choose "+dir)
		}
		return nil
	})
}

func call(f func(string) error, arg string) error {
	if f == nil {
		return nil
	}
	return f(arg)
}
