//go:build !unix

package browse

import "errors"

// readStateFile cannot tell a file's owner here: refuse, as the API's
// peer check does where it cannot tell a connection's.
func readStateFile(string) ([]byte, error) {
	return nil, errors.Join(errUnsafe, errors.New("owner cannot be checked on this system"))
}
