package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// Notification modes.
const (
	NotifyOn     = "on"     // every workspace
	NotifyPaired = "paired" // only workspaces paired with Chrome
	NotifyOff    = "off"
)

// Settings are the person's tray choices, kept in a small JSON file.
type Settings struct {
	Notifications string `json:"notifications"`
	// MinTurnSeconds: a turn shorter than this is not worth a notification
	// (the person was probably still looking).
	MinTurnSeconds int `json:"min_turn_seconds"`
	// Muted workspaces never notify.
	Muted []string `json:"muted,omitempty"`
	// QuietWhenViewing: no notification for a paired workspace whose
	// session a browser is showing right now.
	QuietWhenViewing bool `json:"quiet_when_viewing"`
	// HooksOffer is the answer to the one-time offer to set up message
	// hooks: "" (not answered yet), "accepted" or "declined".
	HooksOffer string `json:"hooks_offer,omitempty"`
	path       string
}

// DefaultSettings are what a first run starts with.
func DefaultSettings() Settings {
	return Settings{Notifications: NotifyOn, MinTurnSeconds: 30, QuietWhenViewing: true}
}

// LoadSettings reads the settings at path; a missing or damaged file gives
// the defaults (a damaged one is kept aside, and the error says where).
func LoadSettings(path string) (Settings, error) {
	s := DefaultSettings()
	s.path = path
	b, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read tray settings: %w", err)
	}
	loaded := s
	if err := json.Unmarshal(b, &loaded); err != nil || !validMode(loaded.Notifications) || loaded.MinTurnSeconds < 0 {
		aside := fmt.Sprintf("%s.damaged-%d", path, time.Now().Unix())
		os.Rename(path, aside)
		return s, fmt.Errorf("tray settings were damaged; moved to %s, using defaults", aside)
	}
	return loaded, nil
}

func validMode(m string) bool { return m == NotifyOn || m == NotifyPaired || m == NotifyOff }

// Save writes the settings back.
func (s Settings) Save() error {
	if s.path == "" {
		return nil
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	return atomicfile.Write(s.path, append(b, '\n'), 0o600)
}

// IsMuted reports whether a workspace is muted.
func (s Settings) IsMuted(id string) bool { return slices.Contains(s.Muted, id) }

// ToggleMute mutes or unmutes a workspace.
func (s *Settings) ToggleMute(id string) {
	if i := slices.Index(s.Muted, id); i >= 0 {
		s.Muted = slices.Delete(s.Muted, i, i+1)
	} else {
		s.Muted = append(s.Muted, id)
	}
}

// saveSettings hands a copy of the settings to the saver. A copy still
// waiting is replaced: the file ends with the newest settings, whatever
// order the clicks came in.
func (m *Menu) saveSettings() {
	s := m.settings
	s.Muted = slices.Clone(s.Muted)
	select {
	case <-m.save:
	default:
	}
	m.save <- s
}

// saver writes settings off the loop, one at a time, in order. At the end
// it still writes a change that was waiting: a click just before Quit
// counts.
func (m *Menu) saver(ctx context.Context) {
	save := func(s Settings) {
		if err := s.Save(); err != nil {
			m.cfg.Log.Warn().Err(err).Msg("tray settings not saved")
		}
	}
	for {
		select {
		case <-ctx.Done():
			select {
			case s := <-m.save:
				save(s)
			default:
			}
			return
		case s := <-m.save:
			save(s)
		}
	}
}
