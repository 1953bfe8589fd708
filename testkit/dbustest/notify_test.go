//go:build linux

package dbustest_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/esiqveland/notify"
	"github.com/gen2brain/beeep"
	"github.com/godbus/dbus/v5"

	"conductorbridge/testkit/dbustest"
)

// runNotifyChild is the subprocess side of TestBeeepNotify. It runs in its
// own process because beeep uses dbus.SessionBus(), which godbus connects
// once per process and then caches.
func runNotifyChild() {
	beeep.AppName = "dbustest"
	if err := beeep.Notify("t", "body", ""); err != nil {
		fmt.Fprintln(os.Stderr, "beeep.Notify:", err)
		os.Exit(1)
	}
	fmt.Println("sent")
}

func TestBeeepNotify(t *testing.T) {
	bus := dbustest.Start(t)
	n := bus.Notifications(t)
	ctx := testContext(t)
	c := startChild(t, bus, "notify")

	got, err := n.Wait(ctx, func(n dbustest.Notification) bool { return n.Summary == "t" })
	if err != nil {
		t.Fatal(err)
	}
	if got.Body != "body" || got.AppName != "dbustest" || got.ID != 1 || got.Timeout != 5000 {
		t.Errorf("notification = %+v, want body %q from dbustest, id 1, timeout 5000ms", got, "body")
	}
	if u := got.Hints["urgency"].Value(); u != byte(1) { // beeep.Notify is "normal" urgency
		t.Errorf("urgency hint = %v, want byte 1", u)
	}
	if err := c.waitLine(ctx, "sent"); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(ctx); err != nil {
		t.Fatalf("child: %v", err)
	}
}

// TestNotificationsDirect exercises the fake over a plain connection with
// the same client library beeep uses, covering ids, replaces_id and close.
func TestNotificationsDirect(t *testing.T) {
	bus := dbustest.Start(t)
	n := bus.Notifications(t)
	conn := bus.Conn(t)
	ctx := testContext(t)

	if caps, err := notify.GetCapabilities(conn); err != nil || !slices.Equal(caps, []string{"body"}) {
		t.Errorf("GetCapabilities = %q, %v", caps, err)
	}
	want := notify.ServerInformation{Name: "fake", Vendor: "test", Version: "1", SpecVersion: "1.2"}
	if info, err := notify.GetServerInformation(conn); err != nil || info != want {
		t.Errorf("GetServerInformation = %+v, %v", info, err)
	}

	first, err := notify.SendNotification(conn, notify.Notification{AppName: "app", Summary: "one", ExpireTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := notify.SendNotification(conn, notify.Notification{Summary: "two", ExpireTimeout: notify.ExpireTimeoutSetByNotificationServer})
	again, _ := notify.SendNotification(conn, notify.Notification{Summary: "one v2", ReplacesID: first})
	if first != 1 || second != 2 || again != first {
		t.Errorf("ids = %d %d %d, want 1 2 1", first, second, again)
	}
	got, err := n.Wait(ctx, func(n dbustest.Notification) bool { return n.ReplacesID == first })
	if err != nil || got.Summary != "one v2" {
		t.Errorf("replacement = %+v, %v", got, err)
	}
	all := n.All()
	if len(all) != 3 || all[0].Timeout != 1000 || all[1].Timeout != -1 || all[0].Sender != conn.Names()[0] {
		t.Errorf("All() = %+v", all)
	}

	// CloseNotification must answer with the NotificationClosed signal.
	sigs := make(chan *dbus.Signal, 10)
	conn.Signal(sigs)
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.Notifications"),
		dbus.WithMatchMember("NotificationClosed")); err != nil {
		t.Fatal(err)
	}
	if err := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").
		Call("org.freedesktop.Notifications.CloseNotification", 0, second).Err; err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-sigs:
		if len(s.Body) != 2 || s.Body[0] != second || s.Body[1] != uint32(3) {
			t.Errorf("NotificationClosed body = %v, want [%d 3]", s.Body, second)
		}
	case <-ctx.Done():
		t.Fatal("no NotificationClosed signal")
	}
	if got := n.Closed(); !slices.Equal(got, []uint32{second}) {
		t.Errorf("Closed() = %v", got)
	}
}
