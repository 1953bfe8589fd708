package agent

import "testing"

func TestAtLeast(t *testing.T) {
	for _, tt := range []struct {
		version string
		want    bool
	}{
		{"2.1.163", true},
		{"2.1.328", true},
		{"2.1.162", false},
		{"2.0.77", false},
		{"3.0.0", true},
		{"2.2.0", true},
		{"1.0.128", false},
		{"2.1.163-beta.1", true},
		{"", false},
		{"2.1", false},
		{"2.x.1", false},
	} {
		if got := AtLeast(tt.version, [3]int{2, 1, 163}); got != tt.want {
			t.Errorf("AtLeast(%q, 2.1.163) = %v, want %v", tt.version, got, tt.want)
		}
	}
}
