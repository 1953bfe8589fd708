package main

import (
	"context"
	"testing"
	"time"
)

// TestIdleBridgeReadsItsOwnCPU runs a real bridge on 200 idle workspaces,
// as `bench` does, and reads its CPU time and wake-ups from /proc over an
// idle spell. The figures are logged for the note and the bench, not
// asserted against a clock: this machine's speed varies. What is
// asserted is that the readings are real (the cold start cost CPU, the
// counters never run backwards, an idle spell costs less than the start)
// and that the idle bridge still answers for every workspace.
func TestIdleBridgeReadsItsOwnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge on 200 workspaces and idles it")
	}
	const workspaces, idle = 200, 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	home := t.TempDir()
	if _, err := makeBenchHome(home, workspaces, 1, 8<<10); err != nil {
		t.Fatal(err)
	}
	c, err := startChild(ctx, binary, home)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if _, err := waitWorkspaces(ctx, c.cl, c.token, workspaces, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	started, ok := cpuTime(c.pid())
	if !ok || started <= 0 {
		t.Fatalf("CPU time after a cold start on %d workspaces: %v (read: %v), want some", workspaces, started, ok)
	}
	time.Sleep(2 * time.Second) // the catch-up's last collection and release
	cpu0, ok0 := cpuTime(c.pid())
	sw0, ok1 := contextSwitches(c.pid())
	time.Sleep(idle)
	cpu1, ok2 := cpuTime(c.pid())
	sw1, ok3 := contextSwitches(c.pid())
	if !ok0 || !ok1 || !ok2 || !ok3 {
		t.Fatal("the bridge's CPU time or context switches could not be read")
	}
	if cpu1 < cpu0 || sw1 < sw0 || cpu0 < started {
		t.Fatalf("counters ran backwards: CPU %v → %v → %v, switches %d → %d", started, cpu0, cpu1, sw0, sw1)
	}
	if spent := cpu1 - cpu0; spent >= started {
		t.Errorf("%v idle cost %v of CPU, no less than the cold start's %v", idle, spent, started)
	}
	t.Logf("idle bridge on %d workspaces: %.3f %% of a core, %.2f wake-ups/s over %v (cold start %v of CPU)",
		workspaces, 100*float64(cpu1-cpu0)/float64(idle), float64(sw1-sw0)/idle.Seconds(), idle, started)
	if _, err := waitWorkspaces(ctx, c.cl, c.token, workspaces, 5*time.Second); err != nil {
		t.Fatalf("after idling: %v", err)
	}
}
