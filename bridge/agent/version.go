package agent

import (
	"strconv"
	"strings"
)

// AtLeast reports whether an agent's "major.minor.patch" version (a
// pre-release suffix after "-" is ignored) is min or newer. An unparsable
// or empty version is too old, so nothing is promised on a guess.
func AtLeast(version string, min [3]int) bool {
	parts := strings.SplitN(strings.SplitN(version, "-", 2)[0], ".", 3)
	if len(parts) != 3 {
		return false
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		v[i] = n
	}
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}
