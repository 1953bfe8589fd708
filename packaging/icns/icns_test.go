package icns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"sort"
	"strings"
	"testing"
)

// want is the format's table, written out again rather than read from
// entries so that a slip there shows up here.
var want = map[string]int{
	"ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024,
	"ic11": 32, "ic12": 64, "ic13": 256, "ic14": 512,
}

// testIcon draws a 1024×1024 icon: an opaque disc with a red/blue split on a
// transparent background, enough to exercise alpha and colour.
func testIcon() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
	for y := 0; y < 1024; y++ {
		for x := 0; x < 1024; x++ {
			dx, dy := float64(x)-511.5, float64(y)-511.5
			if dx*dx+dy*dy > 400*400 {
				continue
			}
			c := color.NRGBA{R: 220, G: 40, B: 40, A: 255}
			if x >= 512 {
				c = color.NRGBA{R: 40, G: 40, B: 220, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func encode(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEncodeDecode(t *testing.T) {
	data := encode(t, testIcon())

	// Header and TOC, read by hand rather than through Decode.
	if string(data[:4]) != "icns" || int(binary.BigEndian.Uint32(data[4:8])) != len(data) {
		t.Fatalf("header = %q %d, file is %d bytes", data[:4], binary.BigEndian.Uint32(data[4:8]), len(data))
	}
	if string(data[8:12]) != "TOC " || binary.BigEndian.Uint32(data[12:16]) != uint32(8+8*len(want)) {
		t.Fatalf("first entry = %q, length %d; want a TOC of %d entries", data[8:12], binary.BigEndian.Uint32(data[12:16]), len(want))
	}

	icons, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, ic := range icons {
		b := ic.Image.Bounds()
		if b.Dx() != b.Dy() {
			t.Errorf("%s is %d×%d", ic.Type, b.Dx(), b.Dy())
		}
		got[ic.Type] = b.Dx()
	}
	if len(got) != len(want) || len(icons) != len(want) {
		t.Errorf("types = %v, want %v", keys(got), keys(want))
	}
	for typ, size := range want {
		if got[typ] != size {
			t.Errorf("%s decodes to %d px, want %d", typ, got[typ], size)
		}
		if ps, ok := PixelSize(typ); !ok || ps != size {
			t.Errorf("PixelSize(%s) = %d, %v", typ, ps, ok)
		}
	}

	// The scaled-down icon keeps its colours and transparent corners.
	for _, ic := range icons {
		if ic.Type != "ic11" {
			continue
		}
		img := ic.Image
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("32 px corner alpha = %d, want transparent", a)
		}
		r, _, b, a := img.At(8, 16).RGBA()
		if a != 0xffff || r>>8 < 210 || b>>8 > 50 {
			t.Errorf("32 px left = %v, want opaque red", img.At(8, 16))
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for name, img := range map[string]image.Image{
		"not square": image.NewNRGBA(image.Rect(0, 0, 1024, 1000)),
		"too small":  image.NewNRGBA(image.Rect(0, 0, 512, 512)),
	} {
		if err := Encode(&bytes.Buffer{}, img); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Bigger than 1024, off origin: fine.
	big := image.NewNRGBA(image.Rect(10, 10, 1034+300, 1034+300))
	if err := Encode(&bytes.Buffer{}, big); err != nil {
		t.Errorf("1324 px off origin: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := encode(t, testIcon())
	withUint32 := func(b []byte, off int, v uint32) []byte {
		c := append([]byte(nil), b...)
		binary.BigEndian.PutUint32(c[off:], v)
		return c
	}
	cases := map[string][]byte{
		"empty":           nil,
		"bad magic":       append([]byte("icnz"), good[4:]...),
		"short":           good[:len(good)-1],
		"header length":   withUint32(good, 4, uint32(len(good)+8)),
		"TOC entry wrong": withUint32(good, 16+4, 12345), // first TOC row's length
	}
	for name, data := range cases {
		_, err := Decode(bytes.NewReader(data))
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v does not wrap ErrFormat", name, err)
		}
	}

	// One of our types holding something other than a PNG.
	bad := []byte("icns\x00\x00\x00\x14ic10\x00\x00\x00\x0cjP  ")
	if _, err := Decode(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Errorf("JPEG 2000 entry: %v", err)
	}
	// Types it does not write are skipped.
	other := []byte("icns\x00\x00\x00\x14info\x00\x00\x00\x0cabcd")
	if icons, err := Decode(bytes.NewReader(other)); err != nil || len(icons) != 0 {
		t.Errorf("info entry: %v, %d icons", err, len(icons))
	}
}

func keys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
