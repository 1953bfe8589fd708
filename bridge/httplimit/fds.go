package httplimit

// capFor sizes the connection cap for a descriptor limit: what is left
// after a reserve for everything else the bridge opens (a transcript per
// live session, journals, the database, watches — on macOS one per
// watched directory — scans and hook calls). The reserve is a quarter of
// the limit, at least 192; the cap at least 16 (a browser or two and the
// CLI) and at most 4096.
func capFor(limit uint64) int {
	const floor, ceil, minReserve = 16, 4096, 192
	if limit > 1<<20 {
		limit = 1 << 20
	}
	reserve := max(uint64(minReserve), limit/4)
	if limit <= reserve+floor {
		return floor
	}
	return int(min(limit-reserve, ceil))
}
