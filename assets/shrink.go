package assets

import (
	"image"
	"image/draw"
	"math"
)

// Area-averaging downscaler: each destination pixel is the mean of the
// source area it covers, weighted by how much of each source pixel falls
// inside. For the power-of-two steps an icon needs (1024 → 512 … 32) that
// is an exact box filter, which keeps thin strokes from aliasing the way
// nearest-neighbour or plain bilinear sampling would. Colours are averaged
// premultiplied by alpha, so transparent pixels' (arbitrary) colour does
// not bleed into the icon's edges.

// Shrink scales img down to size×size (the app icon for notifications,
// the Chrome extension and the bundle's .icns all come from here).
func Shrink(img image.Image, size int) *image.NRGBA {
	return resize(toRGBA64(img), size)
}

// toRGBA64 returns img as 16-bit premultiplied RGBA at origin (0,0): the
// 16 bits keep semi-transparent edges from losing precision before
// averaging.
func toRGBA64(img image.Image) *image.RGBA64 {
	b := img.Bounds()
	dst := image.NewRGBA64(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

// contrib is one source pixel's share of a destination pixel.
type contrib struct {
	index  int
	weight float32
}

// weights returns, for each of out destination pixels along an axis of in
// source pixels, the source pixels it covers and their weights (summing
// to 1).
func weights(in, out int) [][]contrib {
	scale := float64(in) / float64(out)
	ws := make([][]contrib, out)
	for i := range ws {
		start, end := float64(i)*scale, float64(i+1)*scale
		for j := int(math.Floor(start)); j < int(math.Ceil(end)) && j < in; j++ {
			w := math.Min(end, float64(j+1)) - math.Max(start, float64(j))
			if w > 0 {
				ws[i] = append(ws[i], contrib{j, float32(w / scale)})
			}
		}
	}
	return ws
}

// resize scales src (premultiplied) to size×size and returns it
// un-premultiplied, ready for PNG.
func resize(src *image.RGBA64, size int) *image.NRGBA {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	wx, wy := weights(sw, size), weights(sh, size)

	// Horizontal pass: size × sh, 4 premultiplied channels in [0, 65535].
	tmp := make([]float32, size*sh*4)
	for y := 0; y < sh; y++ {
		row := src.Pix[y*src.Stride:]
		for x, cs := range wx {
			t := tmp[(y*size+x)*4:]
			for _, c := range cs {
				p := row[c.index*8:]
				for ch := 0; ch < 4; ch++ {
					t[ch] += c.weight * float32(uint16(p[ch*2])<<8|uint16(p[ch*2+1]))
				}
			}
		}
	}

	// Vertical pass, then back to straight alpha in 8 bits.
	dst := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y, cs := range wy {
		for x := 0; x < size; x++ {
			var px [4]float32
			for _, c := range cs {
				t := tmp[(c.index*size+x)*4:]
				for ch := 0; ch < 4; ch++ {
					px[ch] += c.weight * t[ch]
				}
			}
			o := dst.Pix[y*dst.Stride+x*4:]
			a := px[3]
			if a < 0.5 { // fully transparent: leave (0,0,0,0)
				continue
			}
			for ch := 0; ch < 3; ch++ {
				o[ch] = to8(px[ch] / a * 65535)
			}
			o[3] = to8(a)
		}
	}
	return dst
}

// to8 rounds a 16-bit channel value to 8 bits, clamped.
func to8(v float32) uint8 {
	v = v/65535*255 + 0.5
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v)
}
