package dbustest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

const (
	watcherName  = "org.kde.StatusNotifierWatcher"
	watcherPath  = dbus.ObjectPath("/StatusNotifierWatcher")
	watcherIface = "org.kde.StatusNotifierWatcher"
	// defaultItemPath is where an item lives when it registers by bus name.
	defaultItemPath = "/StatusNotifierItem"
)

// watcherXML is hand-written introspection so busctl/d-feet can explore the
// fake while debugging a test.
const watcherXML = `<node>
 <interface name="org.kde.StatusNotifierWatcher">
  <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
 </interface>` + introspect.IntrospectDataString + prop.IntrospectDataString + `</node>`

// Item identifies a registered StatusNotifierItem: the unique bus name of the
// process that registered it and the object path of its item.
type Item struct {
	Service string
	Path    string
}

// Watcher is a fake org.kde.StatusNotifierWatcher that records item
// registrations. It always claims a host is registered, because some tray
// libraries hide their icon otherwise (fyne does not look).
type Watcher struct {
	conn  *dbus.Conn
	props *prop.Properties

	mu      sync.Mutex
	items   []Item // every registration, in order, duplicates included
	next    int    // index of the next registration WaitItem returns
	changed changes
}

// Watcher starts a fake StatusNotifierWatcher on its own connection. Start it
// before the tray under test so the tray's first registration attempt lands;
// fyne does re-register (within milliseconds) when the watcher name appears
// later, but logs a "failed to register" error first.
func (b *Bus) Watcher(t testing.TB) *Watcher {
	t.Helper()
	w := &Watcher{conn: b.Conn(t)}
	// Export everything before taking the name, so a tray that reacts to
	// NameOwnerChanged never finds a half-built object.
	if err := w.conn.Export(watcherMethods{w}, watcherPath, watcherIface); err != nil {
		t.Fatal(err)
	}
	props, err := prop.Export(w.conn, watcherPath, prop.Map{watcherIface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.props = props
	if err := w.conn.Export(introspect.Introspectable(watcherXML), watcherPath,
		"org.freedesktop.DBus.Introspectable"); err != nil {
		t.Fatal(err)
	}
	requestName(t, w.conn, watcherName)
	return w
}

// requestName takes name as primary owner or fails the test, since a fake
// that is queued behind another owner would silently receive nothing.
func requestName(t testing.TB, conn *dbus.Conn, name string) {
	t.Helper()
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		t.Fatalf("dbustest: RequestName %s: %v", name, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("dbustest: RequestName %s: not primary owner (reply %d)", name, reply)
	}
}

// WaitItem returns the next registration not yet returned by WaitItem,
// waiting for one if necessary. Successive calls therefore also observe
// re-registrations (a tray re-registers whenever the watcher name changes
// owner).
func (w *Watcher) WaitItem(ctx context.Context) (Item, error) {
	it, err := waitFor(ctx, &w.mu, &w.changed, func() (Item, bool) {
		if w.next < len(w.items) {
			w.next++
			return w.items[w.next-1], true
		}
		return Item{}, false
	})
	if err != nil {
		return Item{}, fmt.Errorf("dbustest: no StatusNotifierItem registered: %w", err)
	}
	return it, nil
}

// Items returns every registration so far, in order, duplicates included.
func (w *Watcher) Items() []Item {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Item(nil), w.items...)
}

// watcherMethods holds the D-Bus methods; it is separate from Watcher so
// godbus does not also export WaitItem and Items to the bus.
type watcherMethods struct{ w *Watcher }

// RegisterStatusNotifierItem implements the watcher method. Per the KDE
// convention the argument is either an object path on the caller's
// connection or a bus name whose item lives at /StatusNotifierItem.
func (m watcherMethods) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	// The sender's unique name is recorded even when a well-known name is
	// passed: it is what the item really answers on, and cannot be stolen.
	it := Item{Service: string(sender), Path: defaultItemPath}
	if strings.HasPrefix(service, "/") {
		it.Path = service
	}
	w := m.w
	w.mu.Lock()
	w.items = append(w.items, it)
	registered := uniqueItemStrings(w.items)
	w.changed.broadcast()
	w.mu.Unlock()

	w.props.SetMust(watcherIface, "RegisteredStatusNotifierItems", registered)
	w.conn.Emit(watcherPath, watcherIface+".StatusNotifierItemRegistered", it.Service+it.Path)
	return nil
}

// RegisterStatusNotifierHost implements the watcher method; the fake always
// reports a host anyway, so it only acknowledges.
func (m watcherMethods) RegisterStatusNotifierHost(service string) *dbus.Error {
	return nil
}

// uniqueItemStrings renders registrations the way KDE's watcher lists them
// ("service/path"), without duplicates.
func uniqueItemStrings(items []Item) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, it := range items {
		s := it.Service + it.Path
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
