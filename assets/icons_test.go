package assets

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func decode(t *testing.T, name string, b []byte) image.Image {
	t.Helper()
	if len(b) == 0 {
		t.Fatalf("%s: no data", name)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return img
}

// nrgba returns img's pixels as straight-alpha NRGBA.
func nrgba(img image.Image) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

func TestIconFilesAreTheOnesWeUse(t *testing.T) {
	got, err := fs.Glob(icons, "icons/*.png")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"icons/app-icon.png"}
	for _, s := range TrayStates {
		want = append(want, "icons/tray-"+s+".png", "icons/tray-"+s+"-Template.png", "icons/tray-"+s+"-Template@2x.png")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("embedded icons:\n got %q\nwant %q", got, want)
	}
	if TrayIcon("sleeping", true, true) != nil || TrayIcon("", false, false) != nil {
		t.Error("TrayIcon of an unknown state is not nil")
	}
}

func TestTrayIcons(t *testing.T) {
	for _, v := range []struct {
		name             string
		template, retina bool
		size             int
	}{
		{"template 1x", true, false, 16},
		{"template 2x", true, true, 32},
		{"regular", false, false, 32},
		{"regular retina", false, true, 32},
	} {
		t.Run(v.name, func(t *testing.T) {
			var seen [][]byte
			for _, s := range TrayStates {
				img := nrgba(decode(t, s, TrayIcon(s, v.template, v.retina)))
				if b := img.Bounds(); b.Dx() != v.size || b.Dy() != v.size {
					t.Errorf("%s: %v, want %d×%d", s, b, v.size, v.size)
				}
				opaque := 0
				for i := 0; i < len(img.Pix); i += 4 {
					p := img.Pix[i : i+4]
					if p[3] == 255 {
						opaque++
					}
					if v.template && p[3] > 0 && (p[0] != 0 || p[1] != 0 || p[2] != 0) {
						t.Fatalf("%s: template icon has colour %v at byte %d; want black with alpha only", s, p, i)
					}
				}
				if opaque < v.size { // at least a line's worth of solid pixels
					t.Errorf("%s: only %d opaque pixels", s, opaque)
				}
				for i, o := range seen {
					if bytes.Equal(o, img.Pix) {
						t.Errorf("%s looks the same as %s", s, TrayStates[i])
					}
				}
				seen = append(seen, img.Pix)
			}
		})
	}
}

func TestAppIcon(t *testing.T) {
	img := nrgba(decode(t, "app-icon.png", AppIcon))
	if b := img.Bounds(); b.Dx() != 1024 || b.Dy() != 1024 {
		t.Fatalf("app icon is %v, want 1024×1024", b)
	}
	alpha := func(x, y int) uint8 { return img.NRGBAAt(x, y).A }
	// Outside the rounded square: the corners, the margin, and just outside
	// a rounded corner of the body.
	for _, p := range []image.Point{{0, 0}, {1023, 0}, {0, 1023}, {1023, 1023}, {50, 512}, {512, 980}, {110, 110}, {913, 913}} {
		if a := alpha(p.X, p.Y); a != 0 {
			t.Errorf("alpha at %v is %d, want transparent", p, a)
		}
	}
	// Inside: the centre and the body near its edges.
	for _, p := range []image.Point{{512, 512}, {512, 110}, {110, 512}, {913, 512}, {512, 913}, {200, 200}} {
		if a := alpha(p.X, p.Y); a != 255 {
			t.Errorf("alpha at %v is %d, want opaque", p, a)
		}
	}
}

// TestContactSheet draws every icon onto one PNG for a person to look at:
//
//   - on a light and then a dark menu bar, one column per state (idle,
//     working, needs input, error): the template icons at their real size
//     (1x, then @2x), 1x scaled up ×4, @2x scaled up ×4 (nearest neighbour,
//     to see the pixels), tinted black on light and white on dark as macOS
//     does; then the coloured Linux icon scaled up ×4;
//   - the app icon at 256 px on light and dark, and at 64 and 32 px.
//
// Run: go test ./assets -run ContactSheet -artifacts -outputdir /tmp/art
func TestContactSheet(t *testing.T) {
	const pad, col = 16, 128
	light, dark := color.NRGBA{0xec, 0xec, 0xec, 255}, color.NRGBA{0x1e, 0x1e, 0x1e, 255}
	bandH := pad + 32 + pad + 64 + pad + 128 + pad + 128 + pad
	w := pad + len(TrayStates)*(col+pad)
	sheet := image.NewNRGBA(image.Rect(0, 0, w, 2*bandH+pad+256+pad+64+pad))
	fill := func(r image.Rectangle, c color.Color) {
		draw.Draw(sheet, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	put := func(img image.Image, x, y int) {
		draw.Draw(sheet, img.Bounds().Sub(img.Bounds().Min).Add(image.Pt(x, y)), img, img.Bounds().Min, draw.Over)
	}

	for band, bg := range []color.NRGBA{light, dark} {
		ink := color.NRGBA{0, 0, 0, 255}
		if bg == dark {
			ink = color.NRGBA{255, 255, 255, 255}
		}
		top := band * bandH
		fill(image.Rect(0, top, w, top+bandH), bg)
		for i, s := range TrayStates {
			x := pad + i*(col+pad)
			one := tint(decode(t, s, TrayIcon(s, true, false)), ink)
			two := tint(decode(t, s, TrayIcon(s, true, true)), ink)
			y := top + pad
			put(one, x, y+8)
			put(two, x+32, y)
			y += 32 + pad
			put(nearest(one, 4), x, y)
			y += 64 + pad
			put(nearest(two, 4), x, y)
			y += 128 + pad
			put(nearest(decode(t, s, TrayIcon(s, false, false)), 4), x, y)
		}
	}

	// The app icon, on light and on dark: 256 px, and below it 64 px (a
	// notification) and 32 px (Finder lists).
	top := 2 * bandH
	app := decode(t, "app-icon.png", AppIcon)
	for half, bg := range []color.NRGBA{light, dark} {
		x := half * w / 2
		fill(image.Rect(x, top, x+w/2, sheet.Bounds().Dy()), bg)
		put(shrink(app, 4), x+pad, top+pad)
		put(shrink(app, 16), x+pad, top+pad+256+pad)
		put(shrink(app, 32), x+pad+64+pad, top+pad+256+pad+16)
	}

	path := filepath.Join(t.ArtifactDir(), "contact-sheet.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, sheet); err != nil {
		t.Fatal(err)
	}
	t.Logf("contact sheet: %s", path)
}

// tint paints img's alpha in c, as the macOS menu bar paints a template.
func tint(img image.Image, c color.NRGBA) *image.NRGBA {
	src := nrgba(img)
	out := image.NewNRGBA(src.Bounds())
	for i := 0; i < len(src.Pix); i += 4 {
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = c.R, c.G, c.B, src.Pix[i+3]
	}
	return out
}

// nearest scales img up k times, each pixel a k×k block.
func nearest(img image.Image, k int) *image.NRGBA {
	src := nrgba(img)
	b := src.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx()*k, b.Dy()*k))
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			out.SetNRGBA(x, y, src.NRGBAAt(b.Min.X+x/k, b.Min.Y+y/k))
		}
	}
	return out
}

// shrink scales img down k times, averaging each k×k block.
func shrink(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/k, b.Dy()/k))
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			var r, g, bl, a uint32
			for sy := range k {
				for sx := range k {
					cr, cg, cb, ca := img.At(b.Min.X+x*k+sx, b.Min.Y+y*k+sy).RGBA() // premultiplied
					r, g, bl, a = r+cr, g+cg, bl+cb, a+ca
				}
			}
			n := uint32(k * k)
			out.SetRGBA(x, y, color.RGBA{uint8(r / n >> 8), uint8(g / n >> 8), uint8(bl / n >> 8), uint8(a / n >> 8)})
		}
	}
	return out
}
