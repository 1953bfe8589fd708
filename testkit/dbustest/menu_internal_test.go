//go:build linux

package dbustest

import (
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestStripMnemonics(t *testing.T) {
	for in, want := range map[string]string{
		"Hello": "Hello", "_File": "File", "a__b": "a_b", "Save _As": "Save As", "x_": "x", "___": "_",
	} {
		if got := stripMnemonics(in); got != want {
			t.Errorf("stripMnemonics(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDecodeLayoutDefaults checks spec defaults for absent properties and
// that integer toggle-state of any width is accepted.
func TestDecodeLayoutDefaults(t *testing.T) {
	node := func(id int32, props map[string]dbus.Variant, kids ...any) []any {
		vs := []dbus.Variant{}
		for _, k := range kids {
			vs = append(vs, dbus.MakeVariant(k))
		}
		return []any{id, props, vs}
	}
	root, err := decodeLayout(node(0, map[string]dbus.Variant{},
		node(1, map[string]dbus.Variant{"label": dbus.MakeVariant("Plain")}),
		node(2, map[string]dbus.Variant{"type": dbus.MakeVariant("separator")}),
		node(3, map[string]dbus.Variant{
			"label": dbus.MakeVariant("Sub"), "children-display": dbus.MakeVariant("submenu"),
			"visible": dbus.MakeVariant(false),
		}, node(4, map[string]dbus.Variant{
			"label": dbus.MakeVariant("_Check"), "toggle-type": dbus.MakeVariant("checkmark"),
			"toggle-state": dbus.MakeVariant(int64(1)), "enabled": dbus.MakeVariant(false),
		})),
	))
	if err != nil {
		t.Fatal(err)
	}
	plain := root.Children[0]
	if !plain.Enabled || !plain.Visible || plain.ToggleState != -1 || plain.Type != "" || plain.ToggleType != "" {
		t.Errorf("defaults = %+v", plain)
	}
	check, ok := root.Find("Check")
	if !ok || check.RawLabel != "_Check" || check.ToggleState != 1 || check.Enabled {
		t.Errorf("check = %+v, %v", check, ok)
	}
	want := []string{"Plain", "---", "Sub (hidden)", "  Check"}
	if got := root.Labels(); !slices.Equal(got, want) {
		t.Errorf("Labels = %q, want %q", got, want)
	}
	if _, ok := root.Find("nope"); ok {
		t.Error("Find(nope) found something")
	}
}
