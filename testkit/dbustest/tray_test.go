//go:build linux

package dbustest_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"conductorbridge/testkit/dbustest"
)

const trayTitle = "Conductor Test"

// runTrayChild is the subprocess side of the tray tests: a real fyne tray
// that reports clicks on stdout.
func runTrayChild() {
	// Title and icon are set before Run on purpose: fyne snapshots them when
	// it exports its properties, and a SetIcon from onReady that lands
	// between that snapshot and fyne storing the exported object is lost
	// (seen under -race as a 0x0 IconPixmap).
	systray.SetTitle(trayTitle)
	systray.SetIcon(testPNG(16))
	systray.Run(func() {
		hello := systray.AddMenuItem("Hello", "")
		systray.AddSeparator()
		chrome := systray.AddMenuItem("Chrome", "")
		paired := chrome.AddSubMenuItemCheckbox("Paired with Chrome", "", false)
		rebuild := systray.AddMenuItem("Rebuild", "")
		quit := systray.AddMenuItem("Quit", "")

		onClick(hello, "Hello", nil)
		onClick(paired, "Paired with Chrome", func() {
			if paired.Checked() {
				paired.Uncheck()
			} else {
				paired.Check()
			}
		})
		onClick(rebuild, "Rebuild", func() {
			// ResetMenu closes every old ClickedCh, which ends the
			// onClick loops instead of making them spin.
			systray.ResetMenu()
			systray.AddMenuItem("Rebuilt", "")
			onClick(systray.AddMenuItem("Quit", ""), "Quit", systray.Quit)
			fmt.Println("rebuilt")
		})
		onClick(quit, "Quit", systray.Quit)
		// Handlers run in goroutines: onReady must return, because fyne's
		// GetLayout blocks until it has.
	}, func() { fmt.Println("exiting") })
}

func onClick(item *systray.MenuItem, label string, then func()) {
	go func() {
		for range item.ClickedCh {
			fmt.Println("clicked", label)
			if then != nil {
				then()
			}
		}
	}()
}

// testPNG is a solid size×size PNG, enough for fyne to build an IconPixmap.
func testPNG(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			img.Set(x, y, color.RGBA{R: 0x20, G: 0x80, B: 0xe0, A: 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// startTray runs the tray child on a fresh bus and returns its registration.
func startTray(t *testing.T) (*dbustest.Bus, *child, dbustest.Item) {
	bus := dbustest.Start(t)
	w := bus.Watcher(t) // before the tray, so its first RegisterStatusNotifierItem lands
	start := time.Now()
	c := startChild(t, bus, "tray")
	it, err := w.WaitItem(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tray registered %+v after %v", it, time.Since(start).Round(time.Millisecond))
	return bus, c, it
}

func TestTrayMenuAndClick(t *testing.T) {
	bus, c, it := startTray(t)
	ctx := testContext(t)
	conn := bus.Conn(t)

	if it.Path != "/StatusNotifierItem" {
		t.Errorf("item path = %s, want /StatusNotifierItem", it.Path)
	}
	props, err := dbustest.ItemProps(conn, it)
	if err != nil {
		t.Fatal(err)
	}
	if got := props["Title"].Value(); got != trayTitle {
		t.Errorf("Title = %v, want %q", got, trayTitle)
	}
	if got := props["Menu"].Value(); got != dbus.ObjectPath("/StatusNotifierItem/menu") {
		t.Errorf("Menu = %v", got)
	}
	var pixmaps []struct {
		W, H int32
		Pix  []byte
	}
	if sig := props["IconPixmap"].Signature().String(); sig != "a(iiay)" {
		t.Errorf("IconPixmap signature = %s, want a(iiay)", sig)
	}
	if err := props["IconPixmap"].Store(&pixmaps); err != nil || len(pixmaps) != 1 ||
		pixmaps[0].W != 16 || pixmaps[0].H != 16 || len(pixmaps[0].Pix) != 16*16*4 {
		t.Errorf("IconPixmap = %.80v (err %v), want one 16x16 ARGB pixmap", props["IconPixmap"], err)
	}

	root, err := dbustest.ReadMenu(conn, it)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Hello", "---", "Chrome", "  Paired with Chrome", "Rebuild", "Quit"}
	if got := root.Labels(); !slices.Equal(got, want) {
		t.Fatalf("menu = %q, want %q", got, want)
	}
	if root.ID != 0 || root.Label != "" {
		t.Errorf("root = id %d label %q, want the unlabelled node 0", root.ID, root.Label)
	}
	paired, _ := root.Find("Paired with Chrome")
	if paired.ToggleType != "checkmark" || paired.ToggleState != 0 || !paired.Enabled || !paired.Visible {
		t.Errorf("checkbox = %+v, want enabled visible unchecked checkmark", paired)
	}
	if chrome, _ := root.Find("Chrome"); chrome.Props["children-display"].Value() != "submenu" {
		t.Errorf("Chrome children-display = %v, want submenu", chrome.Props["children-display"])
	}

	if err := dbustest.Click(conn, it, paired.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.waitLine(ctx, "clicked Paired with Chrome"); err != nil {
		t.Fatal(err)
	}
	// The child toggles the checkbox after printing, so poll for it.
	if _, err := dbustest.WaitMenu(ctx, conn, it, func(root dbustest.MenuItem) bool {
		m, _ := root.Find("Paired with Chrome")
		return m.ToggleState == 1
	}); err != nil {
		t.Fatal(err)
	}
}

// TestTrayResetMenu documents how fyne rebuilds a menu: ResetMenu plus new
// items is visible to hosts via LayoutUpdated, and the tray quits cleanly.
func TestTrayResetMenu(t *testing.T) {
	bus, c, it := startTray(t)
	ctx := testContext(t)
	conn := bus.Conn(t)
	if _, err := dbustest.ReadMenu(conn, it); err != nil { // let fyne serve its first, shallow GetLayout
		t.Fatal(err)
	}

	sigs := make(chan *dbus.Signal, 100)
	conn.Signal(sigs)
	if err := conn.AddMatchSignal(dbus.WithMatchSender(it.Service),
		dbus.WithMatchInterface("com.canonical.dbusmenu"), dbus.WithMatchMember("LayoutUpdated")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // skip the refresh fyne schedules 150ms after a first GetLayout
	drain(sigs)

	if err := dbustest.ClickLabel(conn, it, "Rebuild"); err != nil {
		t.Fatal(err)
	}
	if err := c.waitLine(ctx, "rebuilt"); err != nil {
		t.Fatal(err)
	}
	want := []string{"Rebuilt", "Quit"}
	if _, err := dbustest.WaitMenu(ctx, conn, it, func(root dbustest.MenuItem) bool {
		return slices.Equal(root.Labels(), want)
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // catch the delayed refresh too
	revs := drain(sigs)
	t.Logf("LayoutUpdated revisions after Rebuild: %v", revs)
	if len(revs) == 0 {
		t.Error("no LayoutUpdated after ResetMenu + AddMenuItem")
	}

	if err := dbustest.ClickLabel(conn, it, "Quit"); err != nil {
		t.Fatal(err)
	}
	if err := c.waitLine(ctx, "exiting"); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(ctx); err != nil {
		t.Fatalf("tray exit: %v", err)
	}
}

// drain returns the revision of every LayoutUpdated signal queued so far.
func drain(sigs chan *dbus.Signal) []uint32 {
	var revs []uint32
	for {
		select {
		case s := <-sigs:
			if s != nil && len(s.Body) > 0 {
				r, _ := s.Body[0].(uint32)
				revs = append(revs, r)
			}
		default:
			return revs
		}
	}
}
