//go:build unix && !darwin

package httplimit

// perProcess: elsewhere the soft limit is the limit (Linux's fs.nr_open
// bounds the hard limit, which setrlimit already enforces).
func perProcess(soft uint64) uint64 { return soft }
