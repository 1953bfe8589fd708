package assets

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sync"
)

var appIcons sync.Map // size → []byte

// AppIconPNG is the app icon scaled to size×size pixels, made once per size
// (notifications, the Chrome extension's icons).
func AppIconPNG(size int) []byte {
	if b, ok := appIcons.Load(size); ok {
		return b.([]byte)
	}
	src, err := png.Decode(bytes.NewReader(AppIcon))
	if err != nil {
		panic(err) // an embedded file the assets tests decode
	}
	var buf bytes.Buffer
	if size >= src.Bounds().Dx() {
		buf.Write(AppIcon)
	} else if err := png.Encode(&buf, downscale(src, size)); err != nil {
		panic(err) // encoding to memory: cannot fail
	}
	b, _ := appIcons.LoadOrStore(size, buf.Bytes())
	return b.([]byte)
}

// downscale scales src down to size×size, each pixel the average (with
// premultiplied alpha) of the source pixels whose centres it covers.
func downscale(src image.Image, size int) *image.NRGBA {
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
