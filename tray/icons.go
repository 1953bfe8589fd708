package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sync"

	"conductorbridge/assets"
)

// The icons are designed files in assets/icons (drawn by assets/icons/draw):
// a two-arch bridge, in outline (idle), filled (working), or in outline
// with a ! (needs input) or × (error) badge.
//
// Template icons (macOS) are black with alpha, so the menu bar can tint
// them for light and dark; the regular ones (Linux trays) are grey with the
// state in colour.

var iconNames = [...]string{
	IconIdle:       "idle",
	IconWorking:    "working",
	IconNeedsInput: "needs-input",
	IconError:      "error",
}

// IconPNG returns the icon for a state as PNG, about size×size pixels:
//   - template, size up to 16: the 16×16 template; larger: the 32×32 (@2x);
//   - regular, size up to 32: the 32×32 coloured tray icon;
//   - regular, larger (notifications): the app icon scaled to size×size,
//     whatever the state.
func IconPNG(s IconState, template bool, size int) []byte {
	if !template && size > 32 {
		return appIconPNG(size)
	}
	name := "idle"
	if int(s) >= 0 && int(s) < len(iconNames) {
		name = iconNames[s]
	}
	return assets.TrayIcon(name, template, size > 16)
}

var appIcons sync.Map // size → []byte

// appIconPNG is the app icon scaled to size×size, made once per size.
func appIconPNG(size int) []byte {
	if b, ok := appIcons.Load(size); ok {
		return b.([]byte)
	}
	src, err := png.Decode(bytes.NewReader(assets.AppIcon))
	if err != nil {
		panic(err) // an embedded file the assets tests decode
	}
	var buf bytes.Buffer
	if size >= src.Bounds().Dx() {
		buf.Write(assets.AppIcon)
	} else if err := png.Encode(&buf, shrink(src, size)); err != nil {
		panic(err) // encoding to memory: cannot fail
	}
	b, _ := appIcons.LoadOrStore(size, buf.Bytes())
	return b.([]byte)
}

// shrink scales src down to size×size, each pixel the average (with
// premultiplied alpha) of the source pixels whose centres it covers.
func shrink(src image.Image, size int) *image.NRGBA {
	b := src.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		y0, y1 := b.Min.Y+y*b.Dy()/size, b.Min.Y+(y+1)*b.Dy()/size
		for x := range size {
			x0, x1 := b.Min.X+x*b.Dx()/size, b.Min.X+(x+1)*b.Dx()/size
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(sx, sy).RGBA()
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			if n == 0 || a == 0 {
				continue
			}
			out.Set(x, y, color.RGBA64{uint16(r / n), uint16(g / n), uint16(bl / n), uint16(a / n)})
		}
	}
	return out
}
