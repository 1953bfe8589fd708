//go:build !unix

package browse

import "os"

func fileID(os.FileInfo) any { return nil }
