package sqlitewake

import (
	"context"

	"conductorbridge/bridge/sqliteread"
)

// Version asks a database whether another connection committed since it
// last asked (PRAGMA data_version, on one kept read-only connection): the
// read Run wakes for, for a reader whose rows are read elsewhere.
type Version struct {
	conn *sqliteread.Conn
	ver  int64
}

// NewVersion asks the database at path once Changed is called.
func NewVersion(path string) *Version {
	return &Version{conn: sqliteread.New("database", path), ver: -1}
}

// Changed reports whether a commit landed since the last call that said
// so (the first call says so). A database that cannot be read reports
// false with the error, and is opened again next time.
func (v *Version) Changed(ctx context.Context) (bool, error) {
	n, fresh, err := v.conn.DataVersion(ctx)
	if err != nil {
		v.ver = -1
		return false, err
	}
	if n == v.ver && !fresh {
		return false, nil
	}
	v.ver = n
	return true, nil
}

// Close lets the connection go.
func (v *Version) Close() {
	v.conn.Close()
	v.ver = -1
}
