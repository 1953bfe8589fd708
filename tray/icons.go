package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
)

// Icons are drawn here, in code, until the app's designed icons land in
// assets/ (the packaging issue): a ring, and inside it nothing (idle), a dot
// (working), an exclamation mark (needs input) or a cross (error).
//
// Template icons (macOS) are black with alpha, so the menu bar can tint
// them for light and dark; the regular ones (Linux trays) are grey with the
// state in colour.

// IconPNG draws the icon for a state as a size×size PNG.
func IconPNG(s IconState, template bool, size int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	base := color.NRGBA{0, 0, 0, 255}
	accent := base
	if !template {
		base = color.NRGBA{0x80, 0x86, 0x8b, 255}
		accent = [...]color.NRGBA{base, {0x1a, 0x73, 0xe8, 255}, {0xf2, 0x99, 0x00, 255}, {0xd9, 0x30, 0x25, 255}}[s]
	}
	u := float64(size) / 32 // shapes are laid out on a 32-unit grid
	ring := func(x, y float64) bool {
		d := math.Hypot(x-16, y-16)
		return d >= 11.5 && d <= 14.5
	}
	inner := func(x, y float64) bool {
		switch s {
		case IconWorking:
			return math.Hypot(x-16, y-16) <= 6
		case IconNeedsInput:
			return (math.Abs(x-16) <= 1.8 && y >= 8.5 && y <= 18.5) || math.Hypot(x-16, y-22.5) <= 2
		case IconError:
			dx, dy := x-16, y-16
			return math.Abs(dx) <= 6.5 && math.Abs(dy) <= 6.5 &&
				(math.Abs(dx-dy) <= 2.2 || math.Abs(dx+dy) <= 2.2)
		}
		return false
	}
	const ss = 4 // supersampling: smooth edges without a drawing library
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var nRing, nInner int
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / u
					y := (float64(py) + (float64(sy)+0.5)/ss) / u
					switch {
					case inner(x, y):
						nInner++
					case ring(x, y):
						nRing++
					}
				}
			}
			if nRing+nInner == 0 {
				continue
			}
			c := base
			if nInner > nRing {
				c = accent
			}
			c.A = uint8(255 * (nRing + nInner) / (ss * ss))
			img.SetNRGBA(px, py, c)
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}
