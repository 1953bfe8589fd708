package dbustest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
)

const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

const notifyXML = `<node>
 <interface name="org.freedesktop.Notifications">
  <method name="Notify">
   <arg name="app_name" type="s" direction="in"/><arg name="replaces_id" type="u" direction="in"/>
   <arg name="app_icon" type="s" direction="in"/><arg name="summary" type="s" direction="in"/>
   <arg name="body" type="s" direction="in"/><arg name="actions" type="as" direction="in"/>
   <arg name="hints" type="a{sv}" direction="in"/><arg name="expire_timeout" type="i" direction="in"/>
   <arg name="id" type="u" direction="out"/>
  </method>
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="GetServerInformation">
   <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
  </method>
  <method name="CloseNotification"><arg name="id" type="u" direction="in"/></method>
  <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
  <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
 </interface>` + introspect.IntrospectDataString + `</node>`

// Notification is one Notify call received by the fake server.
type Notification struct {
	// ID is the id the server returned (ReplacesID when that was non-zero).
	ID         uint32
	ReplacesID uint32
	AppName    string
	Icon       string
	Summary    string
	Body       string
	// Actions is the flat key/label list as sent.
	Actions []string
	Hints   map[string]dbus.Variant
	// Timeout is expire_timeout in milliseconds (-1 server default, 0 never).
	Timeout int32
	// Sender is the unique bus name of the caller.
	Sender string
}

// Notifications is a fake org.freedesktop.Notifications server that records
// every notification instead of showing it.
type Notifications struct {
	conn *dbus.Conn

	mu      sync.Mutex
	list    []Notification
	lastID  uint32
	closed  []uint32
	changed changes
}

// Notifications starts a fake notification server on its own connection.
// Start it before the code under test: with no <servicedir> on the private
// bus, a Notify sent earlier fails with ServiceUnknown (and beeep then falls
// back to notify-send).
func (b *Bus) Notifications(t testing.TB) *Notifications {
	t.Helper()
	n := &Notifications{conn: b.Conn(t)}
	if err := n.conn.Export(notifyMethods{n}, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if err := n.conn.Export(introspect.Introspectable(notifyXML), notifyPath,
		"org.freedesktop.DBus.Introspectable"); err != nil {
		t.Fatal(err)
	}
	requestName(t, n.conn, notifyName)
	return n
}

// All returns every notification received so far, oldest first.
func (n *Notifications) All() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.list...)
}

// Closed returns the ids passed to CloseNotification, in order.
func (n *Notifications) Closed() []uint32 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]uint32(nil), n.closed...)
}

// Wait returns the oldest notification, already received or still to come,
// that pred accepts. A nil pred accepts any notification.
func (n *Notifications) Wait(ctx context.Context, pred func(Notification) bool) (Notification, error) {
	seen := 0
	got, err := waitFor(ctx, &n.mu, &n.changed, func() (Notification, bool) {
		seen = len(n.list)
		for _, x := range n.list {
			if pred == nil || pred(x) {
				return x, true
			}
		}
		return Notification{}, false
	})
	if err != nil {
		return Notification{}, fmt.Errorf("dbustest: no matching notification among %d received: %w", seen, err)
	}
	return got, nil
}

// notifyMethods holds the D-Bus methods; it is separate from Notifications
// so godbus does not export All and Wait to the bus.
type notifyMethods struct{ n *Notifications }

// Notify records the notification and returns its id: replaces_id if set,
// otherwise the next of an increasing sequence starting at 1 (0 is invalid
// per the spec).
func (m notifyMethods) Notify(sender dbus.Sender, appName string, replacesID uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n := m.n
	n.mu.Lock()
	defer n.mu.Unlock()
	id := replacesID
	if id == 0 {
		n.lastID++
		id = n.lastID
	}
	n.list = append(n.list, Notification{
		ID: id, ReplacesID: replacesID, AppName: appName, Icon: icon, Summary: summary, Body: body,
		Actions: actions, Hints: hints, Timeout: timeout, Sender: string(sender),
	})
	n.changed.broadcast()
	return id, nil
}

// GetCapabilities reports only "body", the minimum that makes clients send
// body text; no actions, markup or persistence.
func (m notifyMethods) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body"}, nil
}

// GetServerInformation identifies the fake, claiming spec version 1.2.
func (m notifyMethods) GetServerInformation() (name, vendor, version, specVersion string, err *dbus.Error) {
	return "fake", "test", "1", "1.2", nil
}

// CloseNotification records the id and emits NotificationClosed with reason
// 3 ("closed by a call to CloseNotification"), as a real server would.
func (m notifyMethods) CloseNotification(id uint32) *dbus.Error {
	n := m.n
	n.mu.Lock()
	n.closed = append(n.closed, id)
	n.changed.broadcast()
	n.mu.Unlock()
	n.conn.Emit(notifyPath, notifyIface+".NotificationClosed", id, uint32(3))
	return nil
}
