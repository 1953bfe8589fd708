package dbustest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	itemIface  = "org.kde.StatusNotifierItem"
	menuIface  = "com.canonical.dbusmenu"
	propsIface = "org.freedesktop.DBus.Properties"
)

// CallTimeout bounds every D-Bus call made by ItemProps, ReadMenu and Click.
// fyne's GetLayout blocks until the tray's onReady callback returns, so a
// stuck onReady shows up as this timeout rather than a hung test.
var CallTimeout = 10 * time.Second

// MenuItem is one decoded com.canonical.dbusmenu node. Absent properties take
// their spec defaults: Enabled and Visible true, ToggleState -1.
type MenuItem struct {
	ID int32
	// Label is the text a desktop would display: dbusmenu treats "_" as a
	// mnemonic marker and "__" as a literal underscore, so both are decoded.
	Label string
	// RawLabel is the "label" property exactly as sent.
	RawLabel string
	// Type is "" for a normal item or "separator" ("standard" maps to "").
	Type string
	// ToggleType is "", "checkmark" or "radio".
	ToggleType string
	// ToggleState is 1 checked, 0 unchecked, -1 when absent. fyne sends 0
	// (not -1) for items that are not checkboxes.
	ToggleState int32
	Enabled     bool
	Visible     bool
	// Props holds every property as sent, e.g. "children-display", "icon-data".
	Props    map[string]dbus.Variant
	Children []MenuItem
}

// call performs one method call bounded by CallTimeout.
func call(conn *dbus.Conn, dest string, path dbus.ObjectPath, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	return conn.Object(dest, path).CallWithContext(ctx, method, 0, args...)
}

// ItemProps returns all org.kde.StatusNotifierItem properties of it (Title,
// ToolTip, IconPixmap, Menu, Status, ...).
func ItemProps(conn *dbus.Conn, it Item) (map[string]dbus.Variant, error) {
	c := call(conn, it.Service, dbus.ObjectPath(it.Path), propsIface+".GetAll", itemIface)
	if c.Err != nil {
		return nil, fmt.Errorf("dbustest: GetAll %s %s: %w", it.Service, it.Path, c.Err)
	}
	// Taken from Body rather than via Store: Store re-wraps each value and
	// recomputes its signature from the decoded Go value, so IconPixmap
	// would claim "aav" instead of the wire's "a(iiay)".
	props, ok := c.Body[0].(map[string]dbus.Variant)
	if !ok {
		return nil, fmt.Errorf("dbustest: GetAll returned %T, want a{sv}", c.Body[0])
	}
	return props, nil
}

// menuPath reads the item's "Menu" property, the dbusmenu object path.
func menuPath(conn *dbus.Conn, it Item) (dbus.ObjectPath, error) {
	var v dbus.Variant
	if err := call(conn, it.Service, dbus.ObjectPath(it.Path), propsIface+".Get", itemIface, "Menu").Store(&v); err != nil {
		return "", fmt.Errorf("dbustest: reading Menu property of %s %s: %w", it.Service, it.Path, err)
	}
	p, ok := v.Value().(dbus.ObjectPath)
	if !ok {
		return "", fmt.Errorf("dbustest: Menu property is %s, want o", v.Signature())
	}
	return p, nil
}

// ReadMenu returns the item's whole menu tree; the returned root is the
// invisible node 0 whose Children are the top-level entries.
//
// Servers may return fewer levels than asked for: fyne answers the first
// GetLayout after startup or ResetMenu with depth 1 (a workaround for
// libdbusmenu-gtk3). So any item announcing children-display=submenu but
// arriving without children is fetched again on its own.
func ReadMenu(conn *dbus.Conn, it Item) (MenuItem, error) {
	path, err := menuPath(conn, it)
	if err != nil {
		return MenuItem{}, err
	}
	root, err := getLayout(conn, it.Service, path, 0)
	if err != nil {
		return MenuItem{}, err
	}
	if err := fillSubmenus(conn, it.Service, path, &root); err != nil {
		return MenuItem{}, err
	}
	return root, nil
}

func fillSubmenus(conn *dbus.Conn, dest string, path dbus.ObjectPath, m *MenuItem) error {
	if len(m.Children) == 0 && m.ID != 0 && propString(m.Props, "children-display", "") == "submenu" {
		sub, err := getLayout(conn, dest, path, m.ID)
		if err != nil {
			return err
		}
		m.Children = sub.Children
	}
	for i := range m.Children {
		if err := fillSubmenus(conn, dest, path, &m.Children[i]); err != nil {
			return err
		}
	}
	return nil
}

// getLayout calls GetLayout(id, -1, []) and decodes the (ia{sv}av) tree.
func getLayout(conn *dbus.Conn, dest string, path dbus.ObjectPath, id int32) (MenuItem, error) {
	c := call(conn, dest, path, menuIface+".GetLayout", id, int32(-1), []string{})
	if c.Err != nil {
		return MenuItem{}, fmt.Errorf("dbustest: GetLayout(%d) on %s %s: %w", id, dest, path, c.Err)
	}
	if len(c.Body) != 2 {
		return MenuItem{}, fmt.Errorf("dbustest: GetLayout returned %d values, want 2", len(c.Body))
	}
	return decodeLayout(c.Body[1])
}

// decodeLayout converts one (ia{sv}av) struct, which godbus hands over as
// []any both at top level and inside the av children.
func decodeLayout(v any) (MenuItem, error) {
	f, ok := v.([]any)
	if !ok || len(f) != 3 {
		return MenuItem{}, fmt.Errorf("dbustest: menu layout is %T, want (ia{sv}av)", v)
	}
	id, ok1 := f[0].(int32)
	props, ok2 := f[1].(map[string]dbus.Variant)
	kids, ok3 := f[2].([]dbus.Variant)
	if !ok1 || !ok2 || !ok3 {
		return MenuItem{}, fmt.Errorf("dbustest: menu layout fields are (%T, %T, %T), want (ia{sv}av)", f[0], f[1], f[2])
	}
	raw := propString(props, "label", "")
	m := MenuItem{
		ID:          id,
		Label:       stripMnemonics(raw),
		RawLabel:    raw,
		Type:        propString(props, "type", ""),
		ToggleType:  propString(props, "toggle-type", ""),
		ToggleState: propInt32(props, "toggle-state", -1),
		Enabled:     propBool(props, "enabled", true),
		Visible:     propBool(props, "visible", true),
		Props:       props,
	}
	if m.Type == "standard" {
		m.Type = ""
	}
	for _, k := range kids {
		child, err := decodeLayout(k.Value())
		if err != nil {
			return MenuItem{}, err
		}
		m.Children = append(m.Children, child)
	}
	return m, nil
}

// stripMnemonics turns a dbusmenu label into displayed text: "__" is a
// literal underscore and any other "_" marks the access key and is hidden.
func stripMnemonics(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i+1 < len(s) && s[i+1] == '_' {
				b.WriteByte('_')
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func propString(props map[string]dbus.Variant, key, def string) string {
	if s, ok := props[key].Value().(string); ok {
		return s
	}
	return def
}

func propBool(props map[string]dbus.Variant, key string, def bool) bool {
	if b, ok := props[key].Value().(bool); ok {
		return b
	}
	return def
}

// propInt32 accepts any integer type, because servers are sloppy here: the
// spec says int32 but e.g. dbus.MakeVariant(1) from Go code is only int32 by
// accident of godbus mapping Go int to "i".
func propInt32(props map[string]dbus.Variant, key string, def int32) int32 {
	switch n := props[key].Value().(type) {
	case int32:
		return n
	case int64:
		return int32(n)
	case uint32:
		return int32(n)
	case int16:
		return int32(n)
	case uint16:
		return int32(n)
	case byte:
		return int32(n)
	}
	return def
}

// Find returns the first item, depth-first starting with m itself, whose
// Label equals label.
func (m MenuItem) Find(label string) (MenuItem, bool) {
	if m.Label == label {
		return m, true
	}
	for _, c := range m.Children {
		if found, ok := c.Find(label); ok {
			return found, true
		}
	}
	return MenuItem{}, false
}

// Labels lists the labels of m's descendants depth-first (m itself is
// omitted, so on a root it lists the visible menu), indenting two spaces per
// nesting level. Separators appear as "---" and hidden items get a
// " (hidden)" suffix, so a mismatch reads like the menu a user would see.
func (m MenuItem) Labels() []string {
	var out []string
	var walk func(MenuItem, string)
	walk = func(n MenuItem, indent string) {
		for _, c := range n.Children {
			s := c.Label
			if c.Type == "separator" {
				s = "---"
			}
			if !c.Visible {
				s += " (hidden)"
			}
			out = append(out, indent+s)
			walk(c, indent+"  ")
		}
	}
	walk(m, "")
	return out
}

// Click sends a dbusmenu "clicked" event for item id, as a desktop does when
// the user picks the entry.
func Click(conn *dbus.Conn, it Item, id int32) error {
	path, err := menuPath(conn, it)
	if err != nil {
		return err
	}
	c := call(conn, it.Service, path, menuIface+".Event", id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if c.Err != nil && !isNoReply(c.Err) {
		return fmt.Errorf("dbustest: Event(%d, clicked): %w", id, c.Err)
	}
	return nil
}

// isNoReply reports the bus's "recipient disconnected without replying"
// error. Clicking an item that quits the app (fyne's Quit closes the
// connection) often ends the process before the Event reply is sent; the
// click was delivered, so Click treats this as success and leaves checking
// the effect to the test.
func isNoReply(err error) bool {
	var e dbus.Error
	return errors.As(err, &e) && e.Name == "org.freedesktop.DBus.Error.NoReply"
}

// ClickLabel reads the menu, finds the first item labelled label and clicks it.
func ClickLabel(conn *dbus.Conn, it Item, label string) error {
	root, err := ReadMenu(conn, it)
	if err != nil {
		return err
	}
	m, ok := root.Find(label)
	if !ok {
		return fmt.Errorf("dbustest: no menu item %q in %q", label, root.Labels())
	}
	return Click(conn, it, m.ID)
}

// WaitMenu polls the menu until pred accepts it, for menus built or changed
// asynchronously (after a click, a ResetMenu, ...). On timeout the error
// includes the last menu seen.
func WaitMenu(ctx context.Context, conn *dbus.Conn, it Item, pred func(root MenuItem) bool) (MenuItem, error) {
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var last MenuItem
	var lastErr error
	for {
		last, lastErr = ReadMenu(conn, it)
		if lastErr == nil && pred(last) {
			return last, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			if lastErr != nil {
				return MenuItem{}, fmt.Errorf("dbustest: menu wait: %w (last error: %v)", ctx.Err(), lastErr)
			}
			return MenuItem{}, fmt.Errorf("dbustest: menu wait: %w; last menu %q", ctx.Err(), last.Labels())
		}
	}
}

// WaitLabels waits until the menu's labels (one a line, as Labels gives
// them) contain every one of want; on timeout the error has the last menu.
func WaitLabels(ctx context.Context, conn *dbus.Conn, it Item, want ...string) (MenuItem, error) {
	return WaitMenu(ctx, conn, it, func(root MenuItem) bool {
		labels := strings.Join(root.Labels(), "\n")
		for _, w := range want {
			if !strings.Contains(labels, w) {
				return false
			}
		}
		return true
	})
}
