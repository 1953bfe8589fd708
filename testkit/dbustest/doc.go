// Package dbustest runs desktop-integration code against a private D-Bus
// session bus populated with fakes, so tests can drive a real tray icon
// (fyne.io/systray speaks StatusNotifierItem + com.canonical.dbusmenu) and
// real desktop notifications (gen2brain/beeep speaks
// org.freedesktop.Notifications) without a desktop session.
//
// A typical test:
//
//	bus := dbustest.Start(t)          // private dbus-daemon, stopped at cleanup
//	w := bus.Watcher(t)               // fake StatusNotifierWatcher
//	n := bus.Notifications(t)         // fake notification daemon
//	// start the code under test with DBUS_SESSION_BUS_ADDRESS=bus.Address
//	// (a subprocess via bus.Environ(), because godbus caches its session bus)
//	it, _ := w.WaitItem(ctx)
//	conn := bus.Conn(t)
//	root, _ := dbustest.ReadMenu(conn, it)
//	item, _ := root.Find("Hello")
//	_ = dbustest.Click(conn, it, item.ID)
//	note, _ := n.Wait(ctx, func(n dbustest.Notification) bool { return n.Summary == "t" })
package dbustest
