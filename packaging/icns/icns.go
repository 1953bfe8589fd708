// Package icns writes and reads Apple icon files (.icns) in pure Go, so the
// app bundle's icon can be made on Linux CI as well as on a Mac, without
// iconutil.
//
// The format: the magic 'icns' and the file's total length (big-endian
// uint32), then entries, each a 4-byte type, a 4-byte length that counts its
// own 8-byte header, and the data. Every entry written here holds a PNG
// (readable by macOS 10.7 and later for all of these types), preceded by a
// 'TOC ' entry listing the others' types and lengths, as iconutil writes.
package icns

import (
	"bytes"
	"conductorbridge/assets"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
)

// Entry types written by Encode and their pixel sizes. Retina variants
// (ic11–ic14) repeat a size of the plain ones: macOS picks by type, not by
// what the PNG holds, so both must be present.
var entries = []struct {
	typ  string
	size int
}{
	{"ic11", 32},   // 16×16@2x
	{"ic12", 64},   // 32×32@2x
	{"ic07", 128},  // 128×128
	{"ic13", 256},  // 128×128@2x
	{"ic08", 256},  // 256×256
	{"ic14", 512},  // 256×256@2x
	{"ic09", 512},  // 512×512
	{"ic10", 1024}, // 512×512@2x
}

// MinSize is the smallest source Encode accepts: the largest entry, so
// every entry is a downscale and none is blown up.
const MinSize = 1024

const (
	magic      = "icns"
	tocType    = "TOC "
	headerSize = 8
)

// PixelSize returns the width (= height) of an entry type's image, and
// whether Encode writes that type.
func PixelSize(typ string) (int, bool) {
	for _, e := range entries {
		if e.typ == typ {
			return e.size, true
		}
	}
	return 0, false
}

// Encode writes img, a square image of at least MinSize pixels, as an icns
// file with every entry type above, each downscaled by area averaging and
// PNG-compressed.
func Encode(w io.Writer, img image.Image) error {
	b := img.Bounds()
	if b.Dx() != b.Dy() {
		return fmt.Errorf("icns: image is %d×%d, want a square", b.Dx(), b.Dy())
	}
	if b.Dx() < MinSize {
		return fmt.Errorf("icns: image is %d×%d, want at least %d×%d", b.Dx(), b.Dy(), MinSize, MinSize)
	}

	// Several types share a size: scale and compress each size once.
	pngs := map[int][]byte{}
	for _, e := range entries {
		if _, ok := pngs[e.size]; ok {
			continue
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, assets.Shrink(img, e.size)); err != nil {
			return fmt.Errorf("icns: encode %d×%d PNG: %w", e.size, e.size, err)
		}
		pngs[e.size] = buf.Bytes()
	}

	var toc, body bytes.Buffer
	for _, e := range entries {
		data := pngs[e.size]
		n := uint32(headerSize + len(data))
		writeHeader(&toc, e.typ, n)
		writeHeader(&body, e.typ, n)
		body.Write(data)
	}
	total := headerSize + headerSize + toc.Len() + body.Len()

	var out bytes.Buffer
	out.Grow(total)
	writeHeader(&out, magic, uint32(total))
	writeHeader(&out, tocType, uint32(headerSize+toc.Len()))
	out.Write(toc.Bytes())
	out.Write(body.Bytes())
	if _, err := out.WriteTo(w); err != nil {
		return fmt.Errorf("icns: write: %w", err)
	}
	return nil
}

func writeHeader(buf *bytes.Buffer, typ string, length uint32) {
	buf.WriteString(typ)
	_ = binary.Write(buf, binary.BigEndian, length) // a bytes.Buffer never fails
}

// Icon is one decoded entry.
type Icon struct {
	Type  string // the 4-byte entry type, e.g. "ic10"
	Image image.Image
}

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("icns: malformed file")

// Decode reads an icns file and decodes its PNG entries, in file order. It
// checks the header's and the table of contents' lengths against the
// entries. Entry types this package does not write (legacy bitmaps, 'info',
// 'icnV', …) are skipped; one of its own types that holds anything but a
// PNG (macOS also allows JPEG 2000 there) is an error.
func Decode(r io.Reader) ([]Icon, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("icns: read: %w", err)
	}
	if len(data) < headerSize || string(data[:4]) != magic {
		return nil, fmt.Errorf("%w: no 'icns' magic", ErrFormat)
	}
	if n := binary.BigEndian.Uint32(data[4:8]); int(n) != len(data) {
		return nil, fmt.Errorf("%w: header says %d bytes, file has %d", ErrFormat, n, len(data))
	}

	var icons []Icon
	var toc []byte
	seen := map[string]uint32{} // type → entry length, to check the TOC
	for off := headerSize; off < len(data); {
		if len(data)-off < headerSize {
			return nil, fmt.Errorf("%w: truncated entry header at offset %d", ErrFormat, off)
		}
		typ := string(data[off : off+4])
		n := binary.BigEndian.Uint32(data[off+4 : off+8])
		if n < headerSize || int(n) > len(data)-off {
			return nil, fmt.Errorf("%w: entry %q at offset %d has length %d", ErrFormat, typ, off, n)
		}
		body := data[off+headerSize : off+int(n)]
		off += int(n)

		if typ == tocType {
			toc = body
			continue
		}
		seen[typ] = n
		if _, ours := PixelSize(typ); !ours {
			continue
		}
		if !bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")) {
			return nil, fmt.Errorf("icns: entry %q is not a PNG (JPEG 2000 or legacy data is not supported)", typ)
		}
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("icns: entry %q: %w", typ, err)
		}
		icons = append(icons, Icon{Type: typ, Image: img})
	}
	if toc != nil {
		if err := checkTOC(toc, seen); err != nil {
			return nil, err
		}
	}
	return icons, nil
}

// checkTOC verifies that the table of contents lists exactly the entries
// found, with their lengths: macOS trusts it when it reads the file.
func checkTOC(toc []byte, seen map[string]uint32) error {
	if len(toc)%headerSize != 0 {
		return fmt.Errorf("%w: TOC length %d is not a multiple of 8", ErrFormat, len(toc))
	}
	if len(toc)/headerSize != len(seen) {
		return fmt.Errorf("%w: TOC lists %d entries, file has %d", ErrFormat, len(toc)/headerSize, len(seen))
	}
	for i := 0; i < len(toc); i += headerSize {
		typ := string(toc[i : i+4])
		n := binary.BigEndian.Uint32(toc[i+4 : i+8])
		if got, ok := seen[typ]; !ok || got != n {
			return fmt.Errorf("%w: TOC says %q is %d bytes, file has %d", ErrFormat, typ, n, got)
		}
	}
	return nil
}
