// Command draw writes the icons in assets/icons: the macOS menu-bar template
// icons, the Linux tray icons and the app icon. The PNG files it writes are
// what the app embeds; this program documents how they were made. Run it
// from the module root after changing the design, then look at the contact
// sheet (see assets/icons_test.go):
//
//	go run ./assets/icons/draw
//
// Shapes are signed distance functions (negative inside) on a 16-unit grid,
// one unit per point: one pixel at 1x, two at 2x. Each pixel averages 8×8
// samples, which antialiases curves. The tray mark's edges sit on whole
// units, and it is snapped to the pixel grid (see snap), so it stays crisp
// at 16 px: a pixel-drawn arch rather than a blurred one.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
)

// shape is a signed distance function: < 0 inside, > 0 outside.
type shape func(x, y float64) float64

func box(x0, y0, x1, y1 float64) shape {
	cx, cy, hx, hy := (x0+x1)/2, (y0+y1)/2, (x1-x0)/2, (y1-y0)/2
	return func(x, y float64) float64 {
		dx, dy := math.Abs(x-cx)-hx, math.Abs(y-cy)-hy
		return math.Hypot(math.Max(dx, 0), math.Max(dy, 0)) + math.Min(math.Max(dx, dy), 0)
	}
}

func disk(cx, cy, r float64) shape {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

// roundBox is a box with corners of radius r.
func roundBox(x0, y0, x1, y1, r float64) shape {
	inner := box(x0+r, y0+r, x1-r, y1-r)
	return func(x, y float64) float64 { return inner(x, y) - r }
}

// bar is a line from (x0,y0) to (x1,y1), w wide, with round caps.
func bar(x0, y0, x1, y1, w float64) shape {
	return func(x, y float64) float64 {
		px, py, bx, by := x-x0, y-y0, x1-x0, y1-y0
		t := math.Max(0, math.Min(1, (px*bx+py*by)/(bx*bx+by*by)))
		return math.Hypot(px-t*bx, py-t*by) - w/2
	}
}

func union(a, b shape) shape {
	return func(x, y float64) float64 { return math.Min(a(x, y), b(x, y)) }
}

func minus(a, b shape) shape {
	return func(x, y float64) float64 { return math.Max(a(x, y), -b(x, y)) }
}

// outline keeps the band w wide just inside s's edge.
func outline(s shape, w float64) shape {
	return func(x, y float64) float64 { d := s(x, y); return math.Max(d, -d-w) }
}

// snap evaluates s at the centre of the pixel (px units wide) a point falls
// in: an aliased, pixel-exact shape. Antialiased curves a pixel or two
// across, like the tray's arches, only look blurred.
func snap(s shape, px float64) shape {
	return func(x, y float64) float64 {
		return s((math.Floor(x/px)+0.5)*px, (math.Floor(y/px)+0.5)*px)
	}
}

// The bridge mark: a two-arch stone viaduct seen from the side, three piers
// and a deck, whose road runs a unit past the end piers onto the banks;
// 16×11 units. Its edges, and the crowns of its arches (radius 2), fall on
// whole units.
var bridge = union(viaduct(2, 4, 2, 11), box(0, 3, 16, 4))

// viaduct is a bridge from x=1 to 15 standing on y=14, its deck's top at
// top, with n round arches between n+1 piers pier wide; the arches spring
// (turn from straight to round) at spring.
func viaduct(n int, top, pier, spring float64) shape {
	r := (14 - float64(n+1)*pier) / float64(2*n)
	s := box(1, top, 15, 14)
	for i := range n {
		x := 1 + pier + r + float64(i)*(pier+2*r)
		s = minus(s, union(disk(x, spring, r), box(x-r, spring, x+r, 14)))
	}
	return s
}

// The badge for needs-input and error: a disc at the top right, like a
// notification badge, with a one-unit gap cut out of the mark around it,
// and in it a glyph one unit wide: ! or ×. Its centre is a pixel's centre at
// 1x, so the glyph sits in the middle.
var (
	badge    = disk(12.5, 3.5, 3.5)
	badgeGap = disk(12.5, 3.5, 4.5)
	bang     = union(box(12, 1, 13, 4), box(12, 5, 13, 6))
)

// cross is the × of the error badge for pixels px units wide: at 1x a
// pixel-exact × of 3×3 pixels (a larger one cuts the small disc in four); at
// 2x antialiased arms, longer.
func cross(px float64) shape {
	if px == 1 {
		return snap(union(bar(11.5, 2.5, 13.5, 4.5, 1), bar(11.5, 4.5, 13.5, 2.5, 1)), px)
	}
	return union(bar(11, 2, 14, 5, 1.1), bar(11, 5, 14, 2, 1.1))
}

var states = []string{"idle", "working", "needs-input", "error"}

// paint gives the colour at a point; the zero colour is transparent.
type paint func(x, y float64) color.NRGBA

// trayPaint draws a state's icon for pixels px units wide: idle is the mark
// in outline (a unit wide) in base; working is the mark filled, in accent;
// needs-input and error are the outline with a badge in accent, its ! or ×
// in glyph (transparent for template icons: the menu bar shows through).
func trayPaint(state string, px float64, base, accent, glyph color.NRGBA) paint {
	in := func(s shape, x, y float64) bool { return s(x, y) < 0 }
	bridge, mark := snap(bridge, px), snap(outline(bridge, 1), px)
	badge, badgeGap := badge, badgeGap
	if px == 1 { // a 7 px disc looks rounder drawn than blurred
		badge, badgeGap = snap(badge, px), snap(badgeGap, px)
	}
	var sign shape
	switch state {
	case "working":
		return func(x, y float64) color.NRGBA {
			if in(bridge, x, y) {
				return accent
			}
			return color.NRGBA{}
		}
	case "needs-input":
		sign = bang
	case "error":
		sign = cross(px)
	}
	return func(x, y float64) color.NRGBA {
		switch {
		case sign != nil && in(sign, x, y):
			return glyph
		case sign != nil && in(badge, x, y):
			return accent
		case sign != nil && in(badgeGap, x, y):
			return color.NRGBA{}
		case in(mark, x, y):
			return base
		}
		return color.NRGBA{}
	}
}

// render draws p on a size×size image, scale pixels per unit, averaging
// ss×ss samples per pixel (in premultiplied colour, so edges stay clean).
func render(size int, scale float64, ss int, p paint) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/float64(ss)) / scale
					y := (float64(py) + (float64(sy)+0.5)/float64(ss)) / scale
					c := p(x, y)
					ca := float64(c.A) / 255
					r, g, b, a = r+float64(c.R)*ca, g+float64(c.G)*ca, b+float64(c.B)*ca, a+ca
				}
			}
			if a == 0 {
				continue
			}
			n := float64(ss * ss)
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(r / a)), G: uint8(math.Round(g / a)), B: uint8(math.Round(b / a)),
				A: uint8(math.Round(255 * a / n)),
			})
		}
	}
	return img
}

// appIcon is the 1024 px app icon: a macOS (Big Sur) rounded square, 824 px
// with a 100 px margin, opaque inside and transparent outside, filled with
// a blue gradient. On it, in white, the mark with its deck run out past the
// piers like a road onto the banks, and a wave of water beneath.
func appIcon() paint {
	body := roundBox(100, 100, 924, 924, 185)
	// The 16-unit grid spans 608 px, centred on the mark (y 4.2 to 16).
	const unit = 38.0
	ox, oy := 512-8*unit, 512-10.1*unit
	road := roundBox(-0.2, 4.2, 16.2, 5.4, 0.3)
	waveY := func(x float64) float64 { return 15.6 - 0.3*math.Sin((x-2.5)*math.Pi/2.75) } // 2 periods
	wave := union(union(disk(2.5, 15.6, 0.3), disk(13.5, 15.6, 0.3)),
		func(x, y float64) float64 { return math.Max(math.Abs(y-waveY(x))-0.3, math.Abs(x-8)-5.5) })
	mark := union(union(viaduct(2, 5, 2, 10.5), road), wave)
	sky := gradient(color.NRGBA{0x5c, 0xad, 0xff, 255}, color.NRGBA{0x1f, 0x4f, 0xd0, 255}, 100, 924)
	return func(x, y float64) color.NRGBA {
		switch {
		case body(x, y) >= 0:
			return color.NRGBA{}
		case mark((x-ox)/unit, (y-oy)/unit) < 0:
			return color.NRGBA{255, 255, 255, 255}
		}
		return sky(y)
	}
}

// gradient runs from a at y0 to b at y1.
func gradient(a, b color.NRGBA, y0, y1 float64) func(y float64) color.NRGBA {
	return func(y float64) color.NRGBA { return mix(a, b, math.Max(0, math.Min(1, (y-y0)/(y1-y0)))) }
}

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	return color.NRGBA{lerp(a.R, b.R, t), lerp(a.G, b.G, t), lerp(a.B, b.B, t), 255}
}

func lerp(a, b uint8, t float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t))
}

func main() {
	dir := filepath.Join("assets", "icons") // from the module root
	if _, src, _, ok := runtime.Caller(0); ok && filepath.IsAbs(src) {
		dir = filepath.Dir(filepath.Dir(src)) // wherever it is run from
	}
	out := flag.String("out", dir, "directory to write the PNG files to")
	flag.Parse()

	black := color.NRGBA{0, 0, 0, 255}
	grey := color.NRGBA{0x8e, 0x8e, 0x93, 255}
	white := color.NRGBA{255, 255, 255, 255}
	accents := map[string]color.NRGBA{
		"idle":        grey,
		"working":     {0x2f, 0x7c, 0xf6, 255}, // blue
		"needs-input": {0xf5, 0xa6, 0x23, 255}, // amber
		"error":       {0xe5, 0x48, 0x4d, 255}, // red
	}
	clear := color.NRGBA{}
	for _, st := range states {
		write(*out, "tray-"+st+"-Template.png", render(16, 1, 8, trayPaint(st, 1, black, black, clear)))
		write(*out, "tray-"+st+"-Template@2x.png", render(32, 2, 8, trayPaint(st, 0.5, black, black, clear)))
		write(*out, "tray-"+st+".png", render(32, 2, 8, trayPaint(st, 0.5, grey, accents[st], white)))
	}
	write(*out, "app-icon.png", render(1024, 1, 4, appIcon()))
}

func write(dir, name string, img image.Image) {
	f, err := os.Create(filepath.Join(dir, name))
	if err == nil {
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "draw:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", filepath.Join(dir, name))
}
